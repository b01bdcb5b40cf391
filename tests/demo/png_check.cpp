// pacer_png_check FILE.png WIDTH HEIGHT - exit 0 if FILE is a WIDTH x HEIGHT PNG that shows a
// picture: many distinct colours and bright pixels (text) as well as dark ones, i.e. not a blank
// or single-colour frame.
#include <cstdio>
#include <cstdlib>
#include <set>

#include <stb_image.h>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: pacer_png_check FILE.png WIDTH HEIGHT\n");
        return 2;
    }
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(argv[1], &w, &h, &n, 3);
    if (px == nullptr) {
        std::fprintf(stderr, "%s: cannot decode: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    const int want_w = std::atoi(argv[2]), want_h = std::atoi(argv[3]);
    std::set<unsigned> colours;
    long bright = 0, dark = 0;
    const long count = static_cast<long>(w) * h;
    for (long i = 0; i < count; ++i) {
        const unsigned char* p = px + 3 * i;
        colours.insert(static_cast<unsigned>(p[0]) << 16 | static_cast<unsigned>(p[1]) << 8 | p[2]);
        const int luma = (p[0] * 3 + p[1] * 6 + p[2]) / 10;
        if (luma > 160) ++bright;
        if (luma < 60) ++dark;
    }
    stbi_image_free(px);
    std::printf("%dx%d, %zu colours, %.2f %% bright, %.2f %% dark\n", w, h, colours.size(),
                100.0 * static_cast<double>(bright) / static_cast<double>(count),
                100.0 * static_cast<double>(dark) / static_cast<double>(count));
    bool ok = true;
    if (w != want_w || h != want_h) {
        std::fprintf(stderr, "size %dx%d, expected %dx%d\n", w, h, want_w, want_h);
        ok = false;
    }
    if (colours.size() < 16) {
        std::fprintf(stderr, "only %zu distinct colours: blank frame?\n", colours.size());
        ok = false;
    }
    if (bright < count / 1000 || dark < count / 10) {
        std::fprintf(stderr, "no text on a dark background: not the demo's UI?\n");
        ok = false;
    }
    return ok ? 0 : 1;
}
