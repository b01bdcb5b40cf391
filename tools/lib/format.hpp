// tools/lib/format.hpp - numbers as the tools write them, in text and in JSON (one copy of each
// form, so that a table and its JSON agree wherever they show the same figure).
#pragma once

#include <optional>
#include <string>

namespace pacer::tools {

// printf's %.*f: the digits a table shows.
std::string fixed(double v, int decimals);

// A JSON number, or null for a value that is not finite (NaN, infinite) or absent:
std::string json_number(double v);                                  // %.6g: six significant digits
std::string json_number(std::optional<double> v, int decimals);     // %.*f: fixed decimals
std::string json_shortest(double v);  // the shortest text that reads back as the same double

}  // namespace pacer::tools
