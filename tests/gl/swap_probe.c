/* A GL program of the interposer's tests (tests/gl/gl_test.sh): it makes a GLX window and swaps it
 * N times through a swap it resolves one way, and prints what it saw:
 *   swap_probe dlsym N    libGL dlopen'ed (RTLD_LOCAL), every GLX call resolved with dlsym: as
 *                         SDL2, Wine and many engines do
 *   swap_probe gpa N      linked to libGL; the swap resolved with glXGetProcAddressARB only
 *   swap_probe direct N   linked to libGL; glXSwapBuffers called directly
 * Output: "swap in <file>" (the object the swap it called lives in: the shim's when hooked) and
 * "frames N in S s". */
#define _GNU_SOURCE
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef XVisualInfo* (*choose_fn)(Display*, int, int*);
typedef GLXContext (*create_fn)(Display*, XVisualInfo*, GLXContext, Bool);
typedef Bool (*current_fn)(Display*, GLXDrawable, GLXContext);
typedef void (*swap_fn)(Display*, GLXDrawable);
typedef void (*clear_fn)(GLbitfield);

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: swap_probe dlsym|gpa|direct FRAMES\n");
        return 2;
    }
    const char* how = argv[1];
    const int frames = atoi(argv[2]);
    choose_fn choose = glXChooseVisual;
    create_fn create = glXCreateContext;
    current_fn current = glXMakeCurrent;
    swap_fn swap = NULL;
    clear_fn clear = glClear;
    if (strcmp(how, "dlsym") == 0) {
        void* gl = dlopen("libGL.so.1", RTLD_NOW | RTLD_LOCAL);
        if (gl == NULL) {
            fprintf(stderr, "swap_probe: %s\n", dlerror());
            return 1;
        }
        choose = (choose_fn)dlsym(gl, "glXChooseVisual");
        create = (create_fn)dlsym(gl, "glXCreateContext");
        current = (current_fn)dlsym(gl, "glXMakeCurrent");
        swap = (swap_fn)dlsym(gl, "glXSwapBuffers");
        clear = (clear_fn)dlsym(gl, "glClear");
    } else if (strcmp(how, "gpa") == 0) {
        swap = (swap_fn)glXGetProcAddressARB((const GLubyte*)"glXSwapBuffers");
    } else if (strcmp(how, "direct") == 0) {
        swap = glXSwapBuffers;
    }
    if (choose == NULL || create == NULL || current == NULL || swap == NULL || clear == NULL) {
        fprintf(stderr, "swap_probe: a GLX function was not found (%s)\n", how);
        return 1;
    }
    Dl_info where;
    printf("swap in %s\n", dladdr((void*)swap, &where) != 0 && where.dli_fname != NULL ? where.dli_fname : "?");
    Display* dpy = XOpenDisplay(NULL);
    if (dpy == NULL) {
        fprintf(stderr, "swap_probe: no X display\n");
        return 1;
    }
    int attrs[] = {GLX_RGBA, GLX_DOUBLEBUFFER, None};
    XVisualInfo* vi = choose(dpy, DefaultScreen(dpy), attrs);
    if (vi == NULL) {
        fprintf(stderr, "swap_probe: no double-buffered visual\n");
        return 1;
    }
    XSetWindowAttributes wa;
    memset(&wa, 0, sizeof wa);
    wa.colormap = XCreateColormap(dpy, RootWindow(dpy, vi->screen), vi->visual, AllocNone);
    Window win = XCreateWindow(dpy, RootWindow(dpy, vi->screen), 0, 0, 64, 64, 0, vi->depth, InputOutput, vi->visual,
                               CWColormap, &wa);
    XMapWindow(dpy, win);
    GLXContext ctx = create(dpy, vi, NULL, True);
    if (ctx == NULL || !current(dpy, win, ctx)) {
        fprintf(stderr, "swap_probe: no GLX context\n");
        return 1;
    }
    const double t0 = now_s();
    for (int i = 0; i < frames; ++i) {
        clear(GL_COLOR_BUFFER_BIT);
        swap(dpy, win);
    }
    printf("frames %d in %.3f s\n", frames, now_s() - t0);
    current(dpy, None, NULL);
    XDestroyWindow(dpy, win);
    XCloseDisplay(dpy);
    return 0;
}
