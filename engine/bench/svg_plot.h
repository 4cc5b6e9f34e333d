// `vt bench decode --plot`: a self-contained SVG of output tok/s against concurrency (log2
// spacing) with the weights-only roofline as a second, dashed line. Pure string building, so the
// picture is testable without a renderer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vt::bench {

struct ThroughputPlot {
  std::string title;
  std::vector<int32_t> concurrencies;  // ascending, each >= 1
  std::vector<double> measured_tokens_per_s;  // one per concurrency
  std::vector<double> roofline_tokens_per_s;  // one per concurrency
};

// The measured series is a <polyline class="measured"> with a circle marker and a value label per
// point, the roofline a <polyline class="roofline"> with a stroke-dasharray.
std::string ThroughputSvg(const ThroughputPlot& plot);

}  // namespace vt::bench
