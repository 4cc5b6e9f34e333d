#include "engine/bench/svg_plot.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace vt::bench {
namespace {

// The points attribute of the polyline with class `name`.
std::string PolylinePoints(const std::string& svg, const std::string& name) {
  std::smatch m;
  const std::regex re("<polyline class=\"" + name + "\"[^>]* points=\"([^\"]*)\"");
  return std::regex_search(svg, m, re) ? m[1].str() : "";
}

int CountOf(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

ThroughputPlot FourLevels() {
  return {"vt bench decode: m on cpu", {1, 2, 4, 8}, {100, 190, 350, 600}, {400, 800, 1600, 3200}};
}

TEST(SvgPlot, MeasuredLineHasOnePointAndMarkerPerConcurrency) {
  const std::string svg = ThroughputSvg(FourLevels());
  EXPECT_EQ(CountOf(PolylinePoints(svg, "measured"), ","), 4);
  EXPECT_EQ(CountOf(svg, "<circle class=\"marker\""), 4);
  EXPECT_EQ(CountOf(svg, "class=\"value\">350.0<"), 1);
}

TEST(SvgPlot, RooflineIsASecondDashedLine) {
  const std::string svg = ThroughputSvg(FourLevels());
  EXPECT_EQ(CountOf(PolylinePoints(svg, "roofline"), ","), 4);
  EXPECT_NE(svg.find("<polyline class=\"roofline\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" "
                     "stroke-dasharray"),
            std::string::npos);
}

TEST(SvgPlot, ConcurrencyIsSpacedByLog2) {
  // 1, 2, 4, 8 are equally spaced on a log2 axis.
  const std::string points = PolylinePoints(ThroughputSvg(FourLevels()), "measured");
  std::vector<double> xs;
  const std::regex pair("([0-9.]+),[0-9.]+");
  for (auto it = std::sregex_iterator(points.begin(), points.end(), pair); it != std::sregex_iterator(); ++it) {
    xs.push_back(std::stod((*it)[1].str()));
  }
  ASSERT_EQ(xs.size(), 4u);
  EXPECT_NEAR(xs[1] - xs[0], xs[2] - xs[1], 0.2);
  EXPECT_NEAR(xs[3] - xs[2], xs[2] - xs[1], 0.2);
  EXPECT_GT(xs[1], xs[0]);
}

TEST(SvgPlot, HigherThroughputIsDrawnHigher) {
  const std::string points = PolylinePoints(ThroughputSvg({"t", {1, 2}, {10, 20}, {30, 60}}), "measured");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(points, m, std::regex("[0-9.]+,([0-9.]+) [0-9.]+,([0-9.]+)")));
  EXPECT_LT(std::stod(m[2].str()), std::stod(m[1].str()));  // SVG y grows downwards
}

TEST(SvgPlot, TitleAndLabelsAreEscaped) {
  const std::string svg = ThroughputSvg({"a <b> & \"c\"", {1}, {5}, {9}});
  EXPECT_NE(svg.find("a &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
}

TEST(SvgPlot, HasAxesTicksAndAxisLabels) {
  const std::string svg = ThroughputSvg(FourLevels());
  EXPECT_NE(svg.find("class=\"x-axis\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"y-axis\""), std::string::npos);
  EXPECT_NE(svg.find(">concurrency (log2 scale)<"), std::string::npos);
  EXPECT_NE(svg.find(">output tokens/s<"), std::string::npos);
  // The y axis covers the roofline's 3200 in steps of 1, 2 or 5 × 10^k.
  EXPECT_NE(svg.find(">1000<"), std::string::npos);
  EXPECT_NE(svg.find(">4000<"), std::string::npos);
  EXPECT_EQ(svg.find(">5000<"), std::string::npos);
  EXPECT_NE(svg.find(">0<"), std::string::npos);
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
}

TEST(SvgPlot, OneLevelStillDrawsInsideTheFrame) {
  const std::string points = PolylinePoints(ThroughputSvg({"t", {4}, {10}, {20}}), "measured");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(points, m, std::regex("([0-9.]+),([0-9.]+)")));
  EXPECT_GT(std::stod(m[1].str()), 80.0);
  EXPECT_LT(std::stod(m[1].str()), 690.0);
}

}  // namespace
}  // namespace vt::bench
