#include "engine/bench/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vt::bench {

namespace {

constexpr double kWidth = 720, kHeight = 440;
constexpr double kLeft = 80, kRight = 30, kTop = 56, kBottom = 64;
constexpr int kTargetYTicks = 5;
constexpr double kPointInset = 24;  // keeps the end markers and labels off the axis and the frame

std::string Number(double v, const char* format = "%.1f") {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string EscapeXml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// 1, 2 or 5 times a power of ten: tick steps a reader can add up in their head.
double NiceStep(double rough) {
  if (!(rough > 0)) return 1.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * magnitude >= rough) return m * magnitude;
  }
  return 10.0 * magnitude;
}

class Axes {
 public:
  Axes(const std::vector<int32_t>& concurrencies, double y_max) {
    x_lo_ = concurrencies.empty() ? 0.0 : std::log2(concurrencies.front());
    x_hi_ = concurrencies.empty() ? 0.0 : std::log2(concurrencies.back());
    if (x_hi_ - x_lo_ < 1.0) {  // one level (or none): centre it instead of dividing by zero
      x_lo_ -= 1.0;
      x_hi_ += 1.0;
    }
    y_step_ = NiceStep(y_max / kTargetYTicks);
    y_hi_ = std::max(1.0, std::ceil(y_max / y_step_)) * y_step_;
  }
  double X(int32_t concurrency) const {
    return kLeft + kPointInset +
           (std::log2(concurrency) - x_lo_) / (x_hi_ - x_lo_) * (kWidth - kLeft - kRight - 2 * kPointInset);
  }
  double Y(double v) const { return kHeight - kBottom - v / y_hi_ * (kHeight - kTop - kBottom); }
  double y_step() const { return y_step_; }
  double y_hi() const { return y_hi_; }

 private:
  double x_lo_, x_hi_, y_step_, y_hi_;
};

std::string Points(const Axes& axes, const std::vector<int32_t>& xs, const std::vector<double>& ys) {
  std::string points;
  for (size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
    points += (i ? " " : "") + Number(axes.X(xs[i])) + "," + Number(axes.Y(ys[i]));
  }
  return points;
}

std::string Text(double x, double y, const std::string& anchor, const std::string& text, const std::string& extra = "") {
  return "<text x=\"" + Number(x) + "\" y=\"" + Number(y) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" +
         EscapeXml(text) + "</text>\n";
}

std::string Line(double x1, double y1, double x2, double y2, const std::string& style) {
  return "<line x1=\"" + Number(x1) + "\" y1=\"" + Number(y1) + "\" x2=\"" + Number(x2) + "\" y2=\"" + Number(y2) +
         "\" " + style + "/>\n";
}

}  // namespace

std::string ThroughputSvg(const ThroughputPlot& plot) {
  double y_max = 0.0;
  for (double v : plot.measured_tokens_per_s) y_max = std::max(y_max, v);
  for (double v : plot.roofline_tokens_per_s) y_max = std::max(y_max, v);
  const Axes axes(plot.concurrencies, y_max);
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;

  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    Number(kWidth, "%.0f") + "\" height=\"" + Number(kHeight, "%.0f") + "\" viewBox=\"0 0 " +
                    Number(kWidth, "%.0f") + " " + Number(kHeight, "%.0f") +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += Text(kWidth / 2, 28, "middle", plot.title, " font-size=\"15\" class=\"title\"");

  const int y_ticks = static_cast<int>(std::lround(axes.y_hi() / axes.y_step()));
  for (int tick = 0; tick <= y_ticks; ++tick) {
    const double v = tick * axes.y_step();
    svg += Line(x0, axes.Y(v), x1, axes.Y(v), "stroke=\"#e5e5e5\"");
    svg += Line(x0 - 5, axes.Y(v), x0, axes.Y(v), "stroke=\"black\"");
    svg += Text(x0 - 8, axes.Y(v) + 4, "end", Number(v, "%g"));
  }
  for (int32_t c : plot.concurrencies) {
    svg += Line(axes.X(c), y0, axes.X(c), y0 + 5, "stroke=\"black\"");
    svg += Text(axes.X(c), y0 + 20, "middle", std::to_string(c));
  }
  svg += Line(x0, y0, x1, y0, "stroke=\"black\" class=\"x-axis\"");
  svg += Line(x0, y0, x0, y1, "stroke=\"black\" class=\"y-axis\"");
  svg += Text((x0 + x1) / 2, kHeight - 18, "middle", "concurrency (log2 scale)");
  svg += Text(20, (y0 + y1) / 2, "middle", "output tokens/s",
              " transform=\"rotate(-90 20 " + Number((y0 + y1) / 2) + ")\"");

  svg += "<polyline class=\"roofline\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" "
         "stroke-dasharray=\"6 4\" points=\"" +
         Points(axes, plot.concurrencies, plot.roofline_tokens_per_s) + "\"/>\n";
  svg += "<polyline class=\"measured\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"" +
         Points(axes, plot.concurrencies, plot.measured_tokens_per_s) + "\"/>\n";
  for (size_t i = 0; i < plot.concurrencies.size() && i < plot.measured_tokens_per_s.size(); ++i) {
    const double x = axes.X(plot.concurrencies[i]), y = axes.Y(plot.measured_tokens_per_s[i]);
    svg += "<circle class=\"marker\" cx=\"" + Number(x) + "\" cy=\"" + Number(y) + "\" r=\"4\" fill=\"#1f77b4\"/>\n";
    svg += Text(x, y - 9, "middle", Number(plot.measured_tokens_per_s[i]), " class=\"value\"");
  }

  svg += Line(x0 + 16, y1 + 4, x0 + 40, y1 + 4, "stroke=\"#1f77b4\" stroke-width=\"2\"");
  svg += Text(x0 + 46, y1 + 8, "start", "measured");
  svg += Line(x0 + 16, y1 + 22, x0 + 40, y1 + 22, "stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"");
  svg += Text(x0 + 46, y1 + 26, "start", "weights-only roofline (c x copy bandwidth / weight bytes)");
  return svg + "</svg>\n";
}

}  // namespace vt::bench
