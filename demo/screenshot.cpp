#include "screenshot.hpp"

#include <cstring>
#include <vector>

#include <SDL_opengl.h>  // the platform's GL 1.x header (GL/gl.h, OpenGL/gl.h)
#include <stb_image_write.h>

namespace pacer_demo {

bool write_screenshot(const std::string& path, int width, int height, std::string* why) {
    if (width <= 0 || height <= 0) {
        *why = "empty framebuffer";
        return false;
    }
    const std::size_t row = static_cast<std::size_t>(width) * 4;
    std::vector<unsigned char> px(row * static_cast<std::size_t>(height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
        *why = "glReadPixels failed (GL error " + std::to_string(e) + ")";
        return false;
    }
    // GL rows start at the bottom; PNG rows at the top. Alpha is forced opaque: the window's
    // alpha channel is whatever blending left there and means nothing in an image viewer.
    std::vector<unsigned char> out(px.size());
    for (int y = 0; y < height; ++y)
        std::memcpy(&out[row * static_cast<std::size_t>(y)],
                    &px[row * static_cast<std::size_t>(height - 1 - y)], row);
    for (std::size_t i = 3; i < out.size(); i += 4) out[i] = 255;
    if (stbi_write_png(path.c_str(), width, height, 4, out.data(), static_cast<int>(row)) == 0) {
        *why = "stbi_write_png could not write '" + path + "'";
        return false;
    }
    return true;
}

}  // namespace pacer_demo
