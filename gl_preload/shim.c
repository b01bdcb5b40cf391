/* libpacer_gl.so: the GL interposer's shim, preloaded into a game (LD_PRELOAD; pacer-run does it).
 * docs/gl.md is the user's manual.
 *
 * What it hooks, and why each:
 *   the swaps                 glXSwapBuffers, glXSwapBuffersMscOML, eglSwapBuffers,
 *                             eglSwapBuffersWithDamageEXT/KHR: one frame each, paced once (a swap
 *                             that calls another inside it is not paced twice)
 *   the swap intervals        glXSwapIntervalEXT/MESA/SGI, eglSwapInterval: the interval in force,
 *                             for the vsync hand-off
 *   the GetProcAddress calls  glXGetProcAddress(ARB), eglGetProcAddress: a game that resolves the
 *                             swap through them gets the hook
 *   dlsym                     SDL2, Wine and many engines dlopen libGL and resolve the swap with
 *                             dlsym: they get the hook too
 * Every hook forwards to the real function, found after the shim in the search order
 * (RTLD_NEXT), else in libGL/libGLX/libEGL if loaded, else through the real GetProcAddress; a
 * pointer the game resolved itself through dlsym or GetProcAddress is what its hook calls.
 *
 * The real dlsym. The shim's dlsym must hand every call it does not answer to the dlsym that
 * comes after it: libc's (glibc >= 2.34; libdl's before), or a second hook's, such as Steam's
 * overlay, which is appended to LD_PRELOAD after this one. It is found by reading the dynamic
 * symbol tables (DT_GNU_HASH, else DT_HASH) of the objects loaded after the shim, in load order:
 * __libc_dlsym and _dl_sym, which older interposers used, are gone from glibc 2.34.
 *
 * RTLD_NEXT and dlerror(). glibc resolves dlsym(RTLD_NEXT, ...) relative to its caller's return
 * address, so a hook that called the real dlsym would make the game's RTLD_NEXT relative to the
 * shim. The shim's dlsym (dlsym_x86_64.S) therefore jumps to the next dlsym, with the game's own
 * return address, for every call it does not answer, RTLD_NEXT always; dlerror() then reads what
 * the real call left, as without the shim. A name it hooks is answered only when the real lookup
 * found it (the hook then calls what was found), else the call is handed on as well.
 *
 * Not here: anything but libc. The pacing is a C++ library that the shim loads at the first swap
 * (interface.h); a process that never swaps (a launch script's shell, a helper) never loads it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interface.h"

#define EXPORT __attribute__((visibility("default")))
#define HIDDEN __attribute__((visibility("hidden")))

typedef void* (*dlsym_fn)(void*, const char*);
typedef void (*gl_proc)(void);

/* ---- the next dlsym ------------------------------------------------------------------------ */

static uint32_t gnu_hash(const char* s) {
    uint32_t h = 5381;
    for (; *s != '\0'; ++s) h = h * 33 + (unsigned char)*s;
    return h;
}

static uint32_t sysv_hash(const char* s) {
    uint32_t h = 0;
    for (; *s != '\0'; ++s) {
        h = (h << 4) + (unsigned char)*s;
        const uint32_t g = h & 0xf0000000u;
        if (g != 0) h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

static int defines(const ElfW(Sym) * sym, const char* strtab, const char* name) {
    return sym->st_shndx != SHN_UNDEF && sym->st_value != 0 && (sym->st_info & 0xf) == STT_FUNC &&
           strcmp(strtab + sym->st_name, name) == 0;
}

/* The address of the function `name` that an object defines in its dynamic symbol table, or null. */
static void* object_function(const struct dl_phdr_info* info, const char* name) {
    const ElfW(Dyn)* dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL) return NULL;
    const ElfW(Sym)* symtab = NULL;
    const char* strtab = NULL;
    const uint32_t* gnu = NULL;
    const uint32_t* sysv = NULL;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
        /* ld.so relocates these in place for the objects it loads, not for the vDSO's read-only table */
        ElfW(Addr) p = d->d_un.d_ptr;
        if (p < info->dlpi_addr) p += info->dlpi_addr;
        if (d->d_tag == DT_SYMTAB) symtab = (const ElfW(Sym)*)p;
        else if (d->d_tag == DT_STRTAB) strtab = (const char*)p;
        else if (d->d_tag == DT_GNU_HASH) gnu = (const uint32_t*)p;
        else if (d->d_tag == DT_HASH) sysv = (const uint32_t*)p;
    }
    if (symtab == NULL || strtab == NULL) return NULL;
    if (gnu != NULL) {
        const uint32_t nbuckets = gnu[0], symoffset = gnu[1], bloom_size = gnu[2];
        if (nbuckets == 0) return NULL;
        const uint32_t* buckets = (const uint32_t*)((const ElfW(Addr)*)(gnu + 4) + bloom_size);
        const uint32_t* chain = buckets + nbuckets;
        const uint32_t h = gnu_hash(name);
        uint32_t i = buckets[h % nbuckets];
        if (i < symoffset) return NULL;
        for (;; ++i) {
            const uint32_t h2 = chain[i - symoffset];
            if ((h | 1) == (h2 | 1) && defines(&symtab[i], strtab, name))
                return (void*)(info->dlpi_addr + symtab[i].st_value);
            if ((h2 & 1) != 0) return NULL;
        }
    }
    if (sysv != NULL) {
        const uint32_t nbucket = sysv[0];
        if (nbucket == 0) return NULL;
        const uint32_t* bucket = sysv + 2;
        const uint32_t* chain = bucket + nbucket;
        for (uint32_t i = bucket[sysv_hash(name) % nbucket]; i != STN_UNDEF; i = chain[i])
            if (defines(&symtab[i], strtab, name)) return (void*)(info->dlpi_addr + symtab[i].st_value);
    }
    return NULL;
}

struct next_search {
    int after_self;
    void* found;
};

static int contains_self(const struct dl_phdr_info* info) {
    const ElfW(Addr) self = (ElfW(Addr))&object_function;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)* p = &info->dlpi_phdr[i];
        if (p->p_type == PT_LOAD && self >= info->dlpi_addr + p->p_vaddr &&
            self < info->dlpi_addr + p->p_vaddr + p->p_memsz)
            return 1;
    }
    return 0;
}

static int find_next(struct dl_phdr_info* info, size_t size, void* data) {
    (void)size;
    struct next_search* s = data;
    if (contains_self(info)) {
        s->after_self = 1;
        return 0;
    }
    if (!s->after_self) return 0;
    s->found = object_function(info, "dlsym");
    return s->found != NULL;
}

static dlsym_fn g_next_dlsym;
static pthread_once_t g_next_once = PTHREAD_ONCE_INIT;

static void find_next_dlsym(void) {
    struct next_search s = {0, NULL};
    dl_iterate_phdr(&find_next, &s);
    if (s.found == NULL) { /* not expected: a libc without dlsym in its table; ask by version */
        s.found = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (s.found == NULL) s.found = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        if (s.found == NULL) s.found = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.0");
    }
    g_next_dlsym = (dlsym_fn)s.found;
}

/* For dlsym_x86_64.S: the dlsym it jumps to. */
HIDDEN dlsym_fn pacer_gl_next_dlsym(void) {
    pthread_once(&g_next_once, &find_next_dlsym);
    return g_next_dlsym;
}

static void* real_dlsym(void* handle, const char* name) {
    const dlsym_fn next = pacer_gl_next_dlsym();
    return next != NULL ? next(handle, name) : NULL;
}

/* ---- what is hooked ------------------------------------------------------------------------ */

enum hooked {
    F_GLX_SWAP,
    F_GLX_SWAP_OML,
    F_GLX_GPA,
    F_GLX_GPA_ARB,
    F_GLX_INTERVAL_EXT,
    F_GLX_INTERVAL_MESA,
    F_GLX_INTERVAL_SGI,
    F_EGL_SWAP,
    F_EGL_DAMAGE_EXT,
    F_EGL_DAMAGE_KHR,
    F_EGL_GPA,
    F_EGL_INTERVAL,
    F_COUNT
};

static const char* const g_names[F_COUNT] = {
    "glXSwapBuffers",      "glXSwapBuffersMscOML",        "glXGetProcAddress",           "glXGetProcAddressARB",
    "glXSwapIntervalEXT",  "glXSwapIntervalMESA",         "glXSwapIntervalSGI",          "eglSwapBuffers",
    "eglSwapBuffersWithDamageEXT", "eglSwapBuffersWithDamageKHR", "eglGetProcAddress", "eglSwapInterval",
};

EXPORT void glXSwapBuffers(void* dpy, unsigned long drawable);
EXPORT int64_t glXSwapBuffersMscOML(void* dpy, unsigned long drawable, int64_t target_msc, int64_t divisor,
                                    int64_t remainder);
EXPORT gl_proc glXGetProcAddress(const unsigned char* name);
EXPORT gl_proc glXGetProcAddressARB(const unsigned char* name);
EXPORT void glXSwapIntervalEXT(void* dpy, unsigned long drawable, int interval);
EXPORT int glXSwapIntervalMESA(unsigned int interval);
EXPORT int glXSwapIntervalSGI(int interval);
EXPORT unsigned int eglSwapBuffers(void* dpy, void* surface);
EXPORT unsigned int eglSwapBuffersWithDamageEXT(void* dpy, void* surface, const int32_t* rects, int32_t n);
EXPORT unsigned int eglSwapBuffersWithDamageKHR(void* dpy, void* surface, int32_t* rects, int32_t n);
EXPORT gl_proc eglGetProcAddress(const char* name);
EXPORT unsigned int eglSwapInterval(void* dpy, int32_t interval);

/* The hooks, in enum hooked's order (set statically: a dlsym may come before any constructor). */
static void* const g_hooks[F_COUNT] = {
    (void*)&glXSwapBuffers,      (void*)&glXSwapBuffersMscOML,        (void*)&glXGetProcAddress,
    (void*)&glXGetProcAddressARB, (void*)&glXSwapIntervalEXT,         (void*)&glXSwapIntervalMESA,
    (void*)&glXSwapIntervalSGI,  (void*)&eglSwapBuffers,              (void*)&eglSwapBuffersWithDamageEXT,
    (void*)&eglSwapBuffersWithDamageKHR, (void*)&eglGetProcAddress,   (void*)&eglSwapInterval,
};
/* The real functions, as found or as the game resolved them. */
static void* volatile g_reals[F_COUNT];

static int hooked_index(const char* name) {
    if (name == NULL || (strncmp(name, "glX", 3) != 0 && strncmp(name, "egl", 3) != 0)) return -1;
    for (int i = 0; i < F_COUNT; ++i)
        if (strcmp(name, g_names[i]) == 0) return i;
    return -1;
}

static int is_egl(int f) { return f >= F_EGL_SWAP; }

/* What the game gets for a name it resolved to `found` itself: the hook, which calls `found`. */
static void* hook_for(int f, void* found) {
    if (f < 0 || found == NULL) return found;
    if (found != g_hooks[f]) __atomic_store_n(&g_reals[f], found, __ATOMIC_RELEASE);
    return g_hooks[f];
}

static void* from_loaded(const char* lib, const char* name) {
    void* h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL) return NULL;
    void* p = real_dlsym(h, name);
    dlclose(h);
    return p;
}

static void* real(int f) {
    void* p = __atomic_load_n(&g_reals[f], __ATOMIC_ACQUIRE);
    if (p != NULL) return p;
    const char* name = g_names[f];
    p = real_dlsym(RTLD_NEXT, name);
    if (p == g_hooks[f]) p = NULL;
    if (p == NULL && is_egl(f)) p = from_loaded("libEGL.so.1", name);
    if (p == NULL && !is_egl(f)) p = from_loaded("libGLX.so.0", name);
    if (p == NULL && !is_egl(f)) p = from_loaded("libGL.so.1", name);
    if (p == NULL && is_egl(f) && f != F_EGL_GPA) {
        gl_proc (*gpa)(const char*) = (gl_proc(*)(const char*))real(F_EGL_GPA);
        if (gpa != NULL) p = (void*)gpa(name);
    } else if (p == NULL && !is_egl(f) && f != F_GLX_GPA && f != F_GLX_GPA_ARB) {
        gl_proc (*gpa)(const unsigned char*) = (gl_proc(*)(const unsigned char*))real(F_GLX_GPA_ARB);
        if (gpa == NULL) gpa = (gl_proc(*)(const unsigned char*))real(F_GLX_GPA);
        if (gpa != NULL) p = (void*)gpa((const unsigned char*)name);
    }
    if (p == g_hooks[f]) p = NULL;
    if (p != NULL) __atomic_store_n(&g_reals[f], p, __ATOMIC_RELEASE);
    return p;
}

/* ---- the pacing library -------------------------------------------------------------------- */

static const struct pacer_gl_pacing* g_pacing;
static pthread_once_t g_pacing_once = PTHREAD_ONCE_INIT;
static __thread int t_in_swap;
static volatile int g_interval = -1;

static int quiet(void) {
    const char* l = getenv("PACER_LOG");
    return l != NULL && strcmp(l, "off") == 0;
}

static void load_pacing(void) {
    Dl_info self;
    if (dladdr((void*)&load_pacing, &self) == 0 || self.dli_fname == NULL) return;
    char path[4096];
    const char* slash = strrchr(self.dli_fname, '/');
    const int dir = slash != NULL ? (int)(slash - self.dli_fname) : 1;
    const char* base = slash != NULL ? self.dli_fname : ".";
    if (snprintf(path, sizeof path, "%.*s/pacer/libpacer_gl_pacing.so", dir, base) >= (int)sizeof path) return;
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        if (!quiet()) fprintf(stderr, "pacer gl: error: cannot load %s (%s); the program runs unpaced\n", path, dlerror());
        return;
    }
    pacer_gl_pacing_entry entry = (pacer_gl_pacing_entry)real_dlsym(h, PACER_GL_PACING_ENTRY);
    const struct pacer_gl_pacing* p = entry != NULL ? entry() : NULL;
    if (p == NULL || p->version != 1) {
        if (!quiet()) fprintf(stderr, "pacer gl: error: %s is not the shim's version; the program runs unpaced\n", path);
        return;
    }
    g_pacing = p;
}

static const struct pacer_gl_pacing* pacing(void) {
    pthread_once(&g_pacing_once, &load_pacing);
    return g_pacing;
}

/* The frame around one swap; returns what `call` returned through *ok. */
#define PACED_SWAP(api_, drawable_, call_, ok_expr_)                                      \
    do {                                                                                  \
        if (t_in_swap) {                                                                  \
            call_;                                                                        \
            break;                                                                        \
        }                                                                                 \
        t_in_swap = 1;                                                                    \
        struct pacer_gl_swap s_ = {(api_), (uintptr_t)(drawable_), g_interval};           \
        const struct pacer_gl_pacing* p_ = pacing();                                      \
        const int paced_ = p_ != NULL ? p_->before(&s_) : 0;                              \
        call_;                                                                            \
        if (p_ != NULL) p_->after(&s_, paced_, (ok_expr_));                               \
        t_in_swap = 0;                                                                    \
    } while (0)

/* ---- GLX ----------------------------------------------------------------------------------- */

typedef unsigned long xid;

EXPORT void glXSwapBuffers(void* dpy, xid drawable) {
    void (*f)(void*, xid) = (void (*)(void*, xid))real(F_GLX_SWAP);
    if (f == NULL) return;
    PACED_SWAP(PACER_GL_GLX, drawable, f(dpy, drawable), 1);
}

EXPORT int64_t glXSwapBuffersMscOML(void* dpy, xid drawable, int64_t target_msc, int64_t divisor, int64_t remainder) {
    int64_t (*f)(void*, xid, int64_t, int64_t, int64_t) =
        (int64_t(*)(void*, xid, int64_t, int64_t, int64_t))real(F_GLX_SWAP_OML);
    if (f == NULL) return -1;
    int64_t r = -1;
    PACED_SWAP(PACER_GL_GLX, drawable, r = f(dpy, drawable, target_msc, divisor, remainder), r >= 0);
    return r;
}

EXPORT gl_proc glXGetProcAddressARB(const unsigned char* name) {
    gl_proc (*f)(const unsigned char*) = (gl_proc(*)(const unsigned char*))real(F_GLX_GPA_ARB);
    if (f == NULL) f = (gl_proc(*)(const unsigned char*))real(F_GLX_GPA);
    if (f == NULL) return NULL;
    const gl_proc r = f(name);
    const int i = hooked_index((const char*)name);
    return (gl_proc)hook_for(i >= 0 && !is_egl(i) ? i : -1, (void*)r);
}

EXPORT gl_proc glXGetProcAddress(const unsigned char* name) { return glXGetProcAddressARB(name); }

EXPORT void glXSwapIntervalEXT(void* dpy, xid drawable, int interval) {
    void (*f)(void*, xid, int) = (void (*)(void*, xid, int))real(F_GLX_INTERVAL_EXT);
    if (f == NULL) return;
    f(dpy, drawable, interval);
    g_interval = interval >= 0 ? interval : -1; /* adaptive (negative): measured, not assumed */
}

EXPORT int glXSwapIntervalMESA(unsigned int interval) {
    int (*f)(unsigned int) = (int (*)(unsigned int))real(F_GLX_INTERVAL_MESA);
    if (f == NULL) return 5; /* GLX_BAD_CONTEXT */
    const int r = f(interval);
    if (r == 0) g_interval = (int)interval;
    return r;
}

EXPORT int glXSwapIntervalSGI(int interval) {
    int (*f)(int) = (int (*)(int))real(F_GLX_INTERVAL_SGI);
    if (f == NULL) return 5;
    const int r = f(interval);
    if (r == 0) g_interval = interval;
    return r;
}

/* ---- EGL ----------------------------------------------------------------------------------- */

EXPORT unsigned int eglSwapBuffers(void* dpy, void* surface) {
    unsigned int (*f)(void*, void*) = (unsigned int (*)(void*, void*))real(F_EGL_SWAP);
    if (f == NULL) return 0;
    unsigned int r = 0;
    PACED_SWAP(PACER_GL_EGL, surface, r = f(dpy, surface), r != 0);
    return r;
}

EXPORT unsigned int eglSwapBuffersWithDamageEXT(void* dpy, void* surface, const int32_t* rects, int32_t n) {
    unsigned int (*f)(void*, void*, const int32_t*, int32_t) =
        (unsigned int (*)(void*, void*, const int32_t*, int32_t))real(F_EGL_DAMAGE_EXT);
    if (f == NULL) return 0;
    unsigned int r = 0;
    PACED_SWAP(PACER_GL_EGL, surface, r = f(dpy, surface, rects, n), r != 0);
    return r;
}

EXPORT unsigned int eglSwapBuffersWithDamageKHR(void* dpy, void* surface, int32_t* rects, int32_t n) {
    unsigned int (*f)(void*, void*, int32_t*, int32_t) =
        (unsigned int (*)(void*, void*, int32_t*, int32_t))real(F_EGL_DAMAGE_KHR);
    if (f == NULL) return 0;
    unsigned int r = 0;
    PACED_SWAP(PACER_GL_EGL, surface, r = f(dpy, surface, rects, n), r != 0);
    return r;
}

EXPORT gl_proc eglGetProcAddress(const char* name) {
    gl_proc (*f)(const char*) = (gl_proc(*)(const char*))real(F_EGL_GPA);
    if (f == NULL) return NULL;
    const gl_proc r = f(name);
    const int i = hooked_index(name);
    return (gl_proc)hook_for(i >= 0 && is_egl(i) ? i : -1, (void*)r);
}

EXPORT unsigned int eglSwapInterval(void* dpy, int32_t interval) {
    unsigned int (*f)(void*, int32_t) = (unsigned int (*)(void*, int32_t))real(F_EGL_INTERVAL);
    if (f == NULL) return 0;
    const unsigned int r = f(dpy, interval);
    if (r != 0) g_interval = interval >= 0 ? interval : -1;
    return r;
}

/* ---- dlsym --------------------------------------------------------------------------------- */

/* For dlsym_x86_64.S: the answer to dlsym(handle, name), or null to hand the call on unchanged. */
HIDDEN void* pacer_gl_dlsym_answer(void* handle, const char* name) {
    if (handle == RTLD_NEXT) return NULL;
    const int f = hooked_index(name);
    if (f < 0) return NULL;
    void* found = real_dlsym(handle, name); /* the game's own lookup: dlerror as it leaves it */
    return found != NULL ? hook_for(f, found) : NULL;
}

#if !defined(__x86_64__) && !defined(__i386__)
/* Without the assembly entry, a call is handed on from here: dlsym(RTLD_NEXT, ...) is then
 * resolved relative to the shim (docs/gl.md says so). */
EXPORT void* dlsym(void* handle, const char* name) {
    void* answer = pacer_gl_dlsym_answer(handle, name);
    if (answer != NULL) return answer;
    const dlsym_fn next = pacer_gl_next_dlsym();
    return next != NULL ? next(handle, name) : NULL;
}
#endif

/* The next dlsym found before the game's main(), while one thread runs. */
__attribute__((constructor)) static void shim_init(void) { (void)pacer_gl_next_dlsym(); }
