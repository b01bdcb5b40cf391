// demo/window.hpp - the windowed demo: the paced frame loop over a GlWindow (gl_window.hpp) and
// the panels (panels.hpp).
#pragma once

#include <string>

#include "options.hpp"

namespace pacer_demo {

// Exit code of the windowed run, or kNoDisplay (with *why) when SDL cannot open a window: the
// caller then falls back to the headless loop.
inline constexpr int kNoDisplay = -1;
int run_window(const Options& o, std::string* why);

}  // namespace pacer_demo
