#include "gl_window.hpp"

#include <SDL.h>
#include <SDL_opengl.h>  // the platform's GL 1.x header (GL/gl.h, OpenGL/gl.h)
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>

#include "pacer/sdl2.hpp"
#include "wayland_seat.hpp"

namespace pacer_demo {

std::unique_ptr<GlWindow> GlWindow::open(std::string* why) {
    if (!wayland_seat_ok(why)) return nullptr;  // SDL_Init would crash
    std::unique_ptr<GlWindow> w(new GlWindow);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        *why = SDL_GetError();
        return nullptr;
    }
    w->sdl_ = true;
    // A driver that shows nothing counts as no display unless asked for by name
    // (SDL_VIDEODRIVER=offscreen renders and takes screenshots without an X server).
    if (pacer::sdl2::video_driver_shows_nothing() && SDL_getenv("SDL_VIDEODRIVER") == nullptr) {
        *why = std::string("SDL found no display, only its '") + SDL_GetCurrentVideoDriver() + "' video driver";
        return nullptr;
    }
    // OpenGL 3.0 and GLSL 130: what ImGui's OpenGL3 backend defaults to on Linux and what Mesa's
    // llvmpipe gives under Xvfb.
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
    SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
    w->win_ = SDL_CreateWindow("pacer demo", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 1280, 800,
                               SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE);
    if (w->win_ == nullptr) {
        *why = SDL_GetError();
        return nullptr;
    }
    w->gl_ = SDL_GL_CreateContext(w->win_);
    if (w->gl_ == nullptr) {
        *why = std::string("no OpenGL 3.0 context: ") + SDL_GetError();
        return nullptr;
    }
    SDL_GL_MakeCurrent(w->win_, w->gl_);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    w->imgui_ = true;
    ImGui::GetIO().IniFilename = nullptr;  // fixed layout, nothing to remember
    ImGui::StyleColorsDark();
    ImGui_ImplSDL2_InitForOpenGL(w->win_, w->gl_);
    ImGui_ImplOpenGL3_Init("#version 130");
    return w;
}

GlWindow::~GlWindow() {
    if (imgui_) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplSDL2_Shutdown();
        ImGui::DestroyContext();
    }
    if (gl_ != nullptr) SDL_GL_DeleteContext(gl_);
    if (win_ != nullptr) SDL_DestroyWindow(win_);
    if (sdl_) SDL_Quit();
}

bool GlWindow::poll_events() {
    bool quit = false;
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
        ImGui_ImplSDL2_ProcessEvent(&e);
        if (e.type == SDL_QUIT) quit = true;
        if (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_ESCAPE) quit = true;
        if (e.type != SDL_WINDOWEVENT) continue;
        switch (e.window.event) {
            case SDL_WINDOWEVENT_CLOSE: quit = true; break;
            case SDL_WINDOWEVENT_MINIMIZED:
            case SDL_WINDOWEVENT_HIDDEN: minimized_ = true; break;
            case SDL_WINDOWEVENT_RESTORED:
            case SDL_WINDOWEVENT_SHOWN: minimized_ = false; break;
            case SDL_WINDOWEVENT_FOCUS_LOST: unfocused_ = true; break;
            case SDL_WINDOWEVENT_FOCUS_GAINED: unfocused_ = false; break;
            default: break;
        }
    }
    return quit;
}

void GlWindow::new_frame() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGui::NewFrame();
}

void GlWindow::draw() {
    const ImGuiIO& io = ImGui::GetIO();
    glViewport(0, 0, static_cast<int>(io.DisplaySize.x), static_cast<int>(io.DisplaySize.y));
    const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void GlWindow::drawable_size(int* w, int* h) const { SDL_GL_GetDrawableSize(win_, w, h); }

GlWindow::DrawCopy::DrawCopy(const ImDrawData* d) {
    const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    background[0] = bg.x;
    background[1] = bg.y;
    background[2] = bg.z;
    if (d == nullptr || !d->Valid) return;
    data = new ImDrawData(*d);
    data->CmdLists = d->CmdListsCount > 0 ? new ImDrawList*[static_cast<std::size_t>(d->CmdListsCount)] : nullptr;
    for (int i = 0; i < d->CmdListsCount; ++i) data->CmdLists[i] = d->CmdLists[i]->CloneOutput();
}

GlWindow::DrawCopy::~DrawCopy() {
    if (data == nullptr) return;
    for (int i = 0; i < data->CmdListsCount; ++i) IM_DELETE(data->CmdLists[i]);
    delete[] data->CmdLists;
    data->CmdLists = nullptr;
    delete data;
}

void GlWindow::draw(const DrawCopy& copy) {
    int fw = 0, fh = 0;
    if (copy.data != nullptr) {
        fw = static_cast<int>(copy.data->DisplaySize.x);
        fh = static_cast<int>(copy.data->DisplaySize.y);
    }
    glViewport(0, 0, fw, fh);
    glClearColor(copy.background[0], copy.background[1], copy.background[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (copy.data != nullptr) ImGui_ImplOpenGL3_RenderDrawData(copy.data);
}

bool GlWindow::make_current(bool on) { return SDL_GL_MakeCurrent(win_, on ? gl_ : nullptr) == 0; }

}  // namespace pacer_demo
