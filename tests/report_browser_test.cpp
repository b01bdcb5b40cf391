// `pacer report` in a real browser: the page of the sample captures rendered by headless Chromium
// into a PNG, decoded (stb_image) and checked to show the plots: each capture's colour drawn over
// many pixels, a fair share of the page not background. Skipped, saying so, only when no Chromium
// is installed (CI installs it: ./dev's PACKAGES).
#include <gtest/gtest.h>

#include <stb_image.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The first of these on PATH, or "" (PACER_CHROMIUM overrides).
std::string find_chromium() {
    if (const char* env = std::getenv("PACER_CHROMIUM"); env != nullptr && *env != '\0') return env;
    const char* path = std::getenv("PATH");
    if (path == nullptr) return "";
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
        std::string dirs = path;
        std::size_t start = 0;
        while (start <= dirs.size()) {
            const std::size_t end = std::min(dirs.find(':', start), dirs.size());
            const fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
            std::error_code ec;
            if (end > start && fs::is_regular_file(candidate, ec)) return candidate.string();
            start = end + 1;
        }
    }
    return "";
}

int run(const std::string& command) {
    std::printf("$ %s\n", command.c_str());
    std::fflush(stdout);
    const int rc = std::system(command.c_str());
    return rc == -1 ? -1 : WEXITSTATUS(rc);
}

struct Rgb {
    int r, g, b;
};

// The first three series colours of the report (tools/lib/report.cpp kColours).
constexpr Rgb kSeries[] = {{0x00, 0x72, 0xb2}, {0xd5, 0x5e, 0x00}, {0x00, 0x9e, 0x73}};

}  // namespace

TEST(ReportBrowser, ChromiumDrawsThePlotsOfTheSamples) {
    const std::string chromium = find_chromium();
    if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium): browser test skipped";

    const fs::path work = fs::path(PACER_TEST_WORK_DIR) / "report-browser";
    fs::remove_all(work);
    fs::create_directories(work);
    const fs::path html = work / "samples.html", png = work / "samples.png";
    const std::string samples = PACER_SAMPLES_DIR;
    ASSERT_EQ(run(std::string(PACER_CLI) + " report '" + samples + "/presentmon1.csv' '" + samples + "/presentmon2.csv' '" +
                  samples + "/mangohud.csv' --title 'Sample captures' -o '" + html.string() + "'"),
              0);

    // A private profile in the build tree; the timeout bounds a browser that hangs.
    const std::string cmd = "timeout 120 '" + chromium + "' --headless --no-sandbox --disable-gpu --hide-scrollbars" +
                            " --user-data-dir='" + (work / "profile").string() + "' --screenshot='" + png.string() +
                            "' --window-size=1400,2000 'file://" + html.string() + "' >'" +
                            (work / "chromium.log").string() + "' 2>&1";
    const int rc = run(cmd);
    ASSERT_EQ(rc, 0) << "chromium failed (124: timed out); its output is in " << (work / "chromium.log").string();

    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(png.string().c_str(), &w, &h, &n, 3);
    ASSERT_NE(px, nullptr) << png << ": " << stbi_failure_reason();
    EXPECT_EQ(w, 1400);
    EXPECT_EQ(h, 2000);
    const long total = static_cast<long>(w) * h;
    long not_white = 0;
    long near[3] = {0, 0, 0};
    for (long i = 0; i < total; ++i) {
        const unsigned char* p = px + 3 * i;
        if (p[0] < 245 || p[1] < 245 || p[2] < 245) ++not_white;
        for (int s = 0; s < 3; ++s) {
            const Rgb c = kSeries[s];
            if (std::abs(p[0] - c.r) <= 24 && std::abs(p[1] - c.g) <= 24 && std::abs(p[2] - c.b) <= 24) ++near[s];
        }
    }
    stbi_image_free(px);
    std::printf("%dx%d: %.2f %% not white; series colour pixels %ld %ld %ld\n", w, h,
                100.0 * static_cast<double>(not_white) / static_cast<double>(total), near[0], near[1], near[2]);
    // The legend and table swatches are 2 x 14 x 14 = 392 pixels per colour: far more means the
    // lines are drawn.
    for (int s = 0; s < 3; ++s) EXPECT_GT(near[s], 1000) << "series " << s << " hardly drawn";
    // Axes, grid, text, lines, histograms: a blank page has none, the same page without its plots ~2 %.
    EXPECT_GT(not_white, total / 33);
}
