// demo/screenshot.hpp - PNG of the current GL framebuffer (stb_image_write from libstb-dev).
#pragma once

#include <string>

namespace pacer_demo {

// Reads width x height RGBA pixels of the back buffer (call after rendering, before the swap),
// flips them to top-down rows and writes a PNG. Returns false with *why filled on failure.
bool write_screenshot(const std::string& path, int width, int height, std::string* why);

}  // namespace pacer_demo
