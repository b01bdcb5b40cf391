// demo/gl_window.hpp - the windowed demo's lifetime: SDL video, a 1280 x 800 window, an OpenGL 3.0
// context, and a Dear ImGui context with its SDL2 and OpenGL3 backends. Created in that order,
// destroyed in the reverse order, also when opening stops half way.
//
//   std::string why;
//   std::unique_ptr<GlWindow> w = GlWindow::open(&why);   // nullptr: no display, see why
//   while (!w->poll_events()) {
//       w->new_frame();  ... ImGui calls ...  ImGui::Render();
//       w->draw();       ... swap ...
//   }
#pragma once

#include <memory>
#include <string>

struct SDL_Window;
struct ImDrawData;

namespace pacer_demo {

class GlWindow {
public:
    static std::unique_ptr<GlWindow> open(std::string* why);
    ~GlWindow();
    GlWindow(const GlWindow&) = delete;
    GlWindow& operator=(const GlWindow&) = delete;

    SDL_Window* sdl() const noexcept { return win_; }
    // Hands this frame's events to ImGui; true once the user asked to quit (Esc, closing).
    bool poll_events();
    // Minimized, hidden or without keyboard focus, from the window events seen so far (a window
    // that never got a focus event, e.g. under Xvfb without a window manager, counts as in front).
    bool in_background() const noexcept { return minimized_ || unfocused_; }
    void new_frame();  // the backends' and ImGui's NewFrame
    void draw();       // clears to the panels' background and draws ImGui's last Render()
    // --render-thread: draws a copy of a Render()'s output on whichever thread has the context
    // current (make_current), cleared to `background`. The copy, as ImGui's own draw data is
    // rebuilt by the next frame's NewFrame on the game thread.
    struct DrawCopy {
        explicit DrawCopy(const ImDrawData* d);
        ~DrawCopy();
        DrawCopy(const DrawCopy&) = delete;
        DrawCopy& operator=(const DrawCopy&) = delete;
        ImDrawData* data = nullptr;
        float background[3] = {0, 0, 0};
    };
    void draw(const DrawCopy& copy);
    bool make_current(bool on);  // the GL context on this thread, or none
    void drawable_size(int* w, int* h) const;

private:
    GlWindow() = default;

    bool sdl_ = false;
    SDL_Window* win_ = nullptr;
    void* gl_ = nullptr;  // SDL_GLContext
    bool imgui_ = false;
    bool minimized_ = false, unfocused_ = false;
};

}  // namespace pacer_demo
