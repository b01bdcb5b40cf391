// `pacer report`'s page: the series reductions against hand-computed values, the HTML (well
// formed, escaped, self-contained, every capture named, the hitch drawn) and the atomic write.
// tests/report_browser_test.cpp renders a page in Chromium.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyze.hpp"
#include "capture_reader.hpp"
#include "report.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using pacer::tools::Analysis;
using pacer::tools::AnalyzeOptions;
using pacer::tools::CaptureReader;
using pacer::tools::Series;

// A PresentMon 1.x file of these frame times, TimeInSeconds the running sum.
std::string capture(const std::vector<double>& ft) {
    std::string s = "Application,ProcessID,TimeInSeconds,MsBetweenPresents\n";
    double t = 0;
    char line[128];
    for (double v : ft) {
        t += v / 1000.0;
        std::snprintf(line, sizeof line, "game.exe,1,%.6f,%.4f\n", t, v);
        s += line;
    }
    return s;
}

Analysis analyse(const std::string& text, const std::string& name) {
    CaptureReader r;
    EXPECT_TRUE(r.open_memory(text, name).ok());
    AnalyzeOptions o;
    o.keep_frames = true;
    Analysis a;
    const pacer::Status st = pacer::tools::analyze_reader(r, o, a);
    EXPECT_TRUE(st.ok()) << st.message();
    return a;
}

// Checks that the page's tags nest: every opened element closed in order, void elements written
// "<x ... />", no stray '<' in text, every '&' the start of an entity. Returns "" or the problem.
std::string check_well_formed(const std::string& html) {
    std::vector<std::string> open;
    std::size_t i = 0;
    while (i < html.size()) {
        const char c = html[i];
        if (c == '&') {
            std::size_t j = i + 1;
            if (j < html.size() && html[j] == '#') ++j;
            const std::size_t name = j;
            while (j < html.size() && std::isalnum(static_cast<unsigned char>(html[j]))) ++j;
            if (j == name || j >= html.size() || html[j] != ';') return "bare & at " + std::to_string(i);
            i = j + 1;
            continue;
        }
        if (c != '<') {
            ++i;
            continue;
        }
        const std::size_t end = html.find('>', i);
        if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
        const std::string tag = html.substr(i + 1, end - i - 1);
        if (tag.find('<') != std::string::npos) return "'<' inside a tag at " + std::to_string(i);
        i = end + 1;
        if (tag.rfind("!DOCTYPE", 0) == 0) continue;
        if (tag.empty()) return "empty tag";
        if (tag[0] == '/') {
            const std::string name = tag.substr(1);
            if (open.empty() || open.back() != name)
                return "</" + name + "> closes <" + (open.empty() ? std::string("nothing") : open.back()) + ">";
            open.pop_back();
            continue;
        }
        if (tag.back() == '/') continue;  // self-closed
        std::string name = tag.substr(0, tag.find_first_of(" \t\n"));
        if (name == "meta" || name == "br" || name == "img" || name == "link") return "void <" + name + "> not self-closed";
        open.push_back(name);
    }
    if (!open.empty()) return "<" + open.back() + "> never closed";
    return "";
}

std::size_t count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
}

std::string temp_dir() {
    static const pacer_test::TempDir dir("pacer-report-test");
    return dir.path().string();
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST(ReduceM4, KeepsFirstLowestHighestLastOfEachColumnInOrder) {
    // Two columns over [0, 8): x 0..3 in the first, 4..7 in the second.
    const std::vector<double> x = {0, 1, 2, 3, 4, 5, 6, 7};
    const std::vector<double> y = {5, 9, 1, 4, 3, 3, 3, 3};
    const Series s = pacer::tools::reduce_m4(x, y, 0, 8, 2);
    // Column 0: first (0,5), highest (1,9), lowest (2,1), last (3,4), in x order. Column 1: all
    // equal, so first = lowest = highest (4,3), and last (7,3).
    EXPECT_EQ(s.x, (std::vector<double>{0, 1, 2, 3, 4, 7}));
    EXPECT_EQ(s.y, (std::vector<double>{5, 9, 1, 4, 3, 3}));
}

TEST(ReduceM4, FewerPointsThanColumnsAreKeptAsTheyAre) {
    const std::vector<double> x = {0, 0.5, 2, 9.5};
    const std::vector<double> y = {16, 17, 15, 33};
    const Series s = pacer::tools::reduce_m4(x, y, 0, 10, 100);
    EXPECT_EQ(s.x, x);
    EXPECT_EQ(s.y, y);
}

TEST(ReduceM4, OneLongFrameAmongAMillionSurvives) {
    constexpr std::size_t n = 1'000'000, hitch = 612'345;
    std::vector<double> t(n), ft(n, 1000.0 / 120);
    ft[hitch] = 200;
    for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<double>(i) / 120.0;
    const Series s = pacer::tools::reduce_m4(t, ft, 0, t.back(), 1280);
    EXPECT_LE(s.x.size(), 4u * 1280);
    const auto top = std::max_element(s.y.begin(), s.y.end());
    ASSERT_NE(top, s.y.end());
    EXPECT_EQ(*top, 200);
    EXPECT_EQ(s.x[static_cast<std::size_t>(top - s.y.begin())], t[hitch]);
    EXPECT_EQ(std::count(s.y.begin(), s.y.end(), 200.0), 1);
}

TEST(ReduceM4, TimesOutOfOrderStillGiveAtMostFourPointsAColumn) {
    // Rows alternating between the two ends of the time axis (two logs interleaved).
    std::vector<double> x, y;
    for (int i = 0; i < 10'000; ++i) {
        x.push_back(i % 2 ? 9.5 : 0.5);
        y.push_back(i == 7'777 ? 100.0 : static_cast<double>(i % 7));
    }
    const Series s = pacer::tools::reduce_m4(x, y, 0, 10, 10);
    EXPECT_LE(s.x.size(), 8u);
    EXPECT_EQ(*std::max_element(s.y.begin(), s.y.end()), 100.0);
}

TEST(MovingFps, AverageOfTheFramesInTheTrailingWindow) {
    // Frames at t = 0.25, 0.5, ..., frame times 250 ms, then from the 9th on 125 ms.
    std::vector<double> t, ft;
    double now = 0;
    for (int i = 0; i < 12; ++i) {
        const double v = i < 8 ? 250 : 125;
        now += v / 1000;
        t.push_back(now);
        ft.push_back(v);
    }
    const Series s = pacer::tools::moving_fps(t, ft, 1.0);
    // The window is full from the frame at t >= 0.25 + 1.0 (the 5th frame, t = 1.25) on.
    ASSERT_EQ(s.x.size(), 8u);
    EXPECT_DOUBLE_EQ(s.x[0], 1.25);
    EXPECT_DOUBLE_EQ(s.y[0], 4.0);  // frames at 0.5, 0.75, 1.0, 1.25: 4 x 250 ms
    // Last frame t = 2.5: frames in (1.5, 2.5] are 1.75, 2.0 (250 ms) and 2.125 .. 2.5 (4 x 125):
    // 6 frames over 1000 ms.
    EXPECT_DOUBLE_EQ(s.x.back(), 2.5);
    EXPECT_DOUBLE_EQ(s.y.back(), 6.0);
}

TEST(HtmlEscape, MarkupCharactersBecomeEntities) {
    EXPECT_EQ(pacer::tools::html_escape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
    EXPECT_EQ(pacer::tools::html_escape("caf\xC3\xA9.csv"), "caf\xC3\xA9.csv");
    EXPECT_EQ(pacer::tools::html_escape(std::string("a\x01z", 3)), "a\xEF\xBF\xBDz");
}

TEST(RenderReport, WellFormedSelfContainedAndNamesEveryCapture) {
    std::vector<double> ft1(300, 16.6), ft2(200, 8.3);
    ft2[150] = 40;  // a stutter
    std::vector<Analysis> as;
    as.push_back(analyse(capture(ft1), "run <one> & \"fast\".csv"));
    as.push_back(analyse(capture(ft2), "run-two.csv"));
    pacer::tools::ReportOptions o;
    o.title = "<script>alert(1)</script>";
    const std::string page = pacer::tools::render_report(as, o);
    EXPECT_EQ(check_well_formed(page), "");
    EXPECT_EQ(page.find("http://"), std::string::npos);
    EXPECT_EQ(page.find("https://"), std::string::npos);
    EXPECT_EQ(page.find("<script"), std::string::npos);
    EXPECT_EQ(page.find("src="), std::string::npos);
    EXPECT_EQ(page.find("url("), std::string::npos);
    EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    // Legend, table head and the marks' titles name each capture; the raw name never appears.
    const std::string name1 = "run &lt;one&gt; &amp; &quot;fast&quot;.csv";
    EXPECT_GE(count(page, name1), 2u);
    EXPECT_GE(count(page, "run-two.csv"), 2u);
    EXPECT_EQ(page.find("run <one>"), std::string::npos);
    // Two captures: two series in each of the three line plots.
    EXPECT_EQ(count(page, "<polyline class=\"series\""), 6u);
    EXPECT_EQ(count(page, "<path class=\"hist\""), 2u);
    // The stutter of the second capture is marked (40 ms > 2.5 x 8.3 ms).
    EXPECT_NE(page.find("run-two.csv \xE2\x80\x94 game.exe (PID 1): stutter 40.00 ms"), std::string::npos);
}

TEST(RenderReport, SummaryTableHasTheHandComputedNumbers) {
    // 99 frames of 10 ms and one of 20 ms: 1010 ms, average FPS 1000 x 100 / 1010 = 99.0099;
    // the 1 % low = 1000 / mean of the frames >= p99 (the 20 ms one and the interpolated cut:
    // p99 = 10 + 0.01 x 10 = 10.1, so only the 20 ms frame) = 50.
    std::vector<double> ft(100, 10);
    ft[60] = 20;
    std::vector<Analysis> as{analyse(capture(ft), "a.csv")};
    const std::string page = pacer::tools::render_report(as, {});
    EXPECT_NE(page.find("<tr><th>average FPS</th><td>99.0</td></tr>"), std::string::npos);
    EXPECT_NE(page.find("<tr><th>1 % low FPS</th><td>50.0</td></tr>"), std::string::npos);
    EXPECT_NE(page.find("<tr><th>frames</th><td>100</td></tr>"), std::string::npos);
    EXPECT_NE(page.find("<tr><th>frame time max (ms)</th><td>20.00</td></tr>"), std::string::npos);
    // No target in this capture: the library's pacing figures say none.
    EXPECT_NE(page.find("<tr><th>off_100us_share (%)</th><td>-</td></tr>"), std::string::npos) << page;
    // Refresh periods of 16.667 ms (60 Hz default): 10 ms (0.6) and 20 ms (1.2) are in the bin of
    // 1 period [0.5,1.5); with a quarter of the frames at 30 ms (1.8 periods) 75 % are.
    EXPECT_NE(page.find("<tr><th>lasting 1 refresh period [0.5,1.5) (%)</th><td>100.00 "), std::string::npos);
    for (int i = 0; i < 25; ++i) ft[static_cast<std::size_t>(4 * i)] = 30;
    const std::string slow = pacer::tools::render_report({analyse(capture(ft), "b.csv")}, {});
    EXPECT_NE(slow.find("<tr><th>lasting 1 refresh period [0.5,1.5) (%)</th><td>75.00 <span class=\"dim\">(of 16.667 ms)</span>"),
              std::string::npos);
}

TEST(RenderReport, ALongHitchIsMarkedAboveTheAxisWithItsFrameTime) {
    // 20 000 frames at 60 FPS and one of 200 ms: the axis stays near the ordinary frames and the
    // hitch is drawn on its top edge, labelled, and marked as a hitch.
    std::vector<double> ft(20'000, 1000.0 / 60);
    ft[12'345] = 200;
    std::vector<Analysis> as{analyse(capture(ft), "long.csv")};
    const std::string page = pacer::tools::render_report(as, {});
    EXPECT_NE(page.find(">200 ms</text>"), std::string::npos);
    EXPECT_NE(page.find("long.csv \xE2\x80\x94 game.exe (PID 1): hitch 200.00 ms at"), std::string::npos);
    EXPECT_NE(page.find("long.csv \xE2\x80\x94 game.exe (PID 1): 200.0 ms at"), std::string::npos);
    EXPECT_NE(page.find("Frames above 25 ms are marked"), std::string::npos);  // 1.25 x 16.7 -> 25
    EXPECT_EQ(check_well_formed(page), "");
    EXPECT_LT(page.size(), 400'000u);
}

TEST(WriteFileAtomically, WritesTheWholeFileAndLeavesNoTemporary) {
    const std::string path = temp_dir() + "/page.html";
    ASSERT_TRUE(pacer::tools::write_file_atomically(path, "old").ok());
    const std::string text(100'000, 'x');
    ASSERT_TRUE(pacer::tools::write_file_atomically(path, text).ok());
    EXPECT_EQ(slurp(path), text);
    EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(WriteFileAtomically, FailureNamesThePathAndLeavesNothing) {
    const std::string missing = temp_dir() + "/no-such-dir/page.html";
    const pacer::Status st = pacer::tools::write_file_atomically(missing, "x");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message().rfind("cannot write " + missing + ": ", 0), 0u) << st.message();
    EXPECT_FALSE(fs::exists(missing));
    // A directory in the way: the rename fails, the temporary file is removed.
    const std::string dir = temp_dir() + "/a-directory";
    fs::create_directories(dir);
    const pacer::Status st2 = pacer::tools::write_file_atomically(dir, "x");
    ASSERT_FALSE(st2.ok());
    EXPECT_EQ(st2.message().rfind("cannot write " + dir + ": ", 0), 0u) << st2.message();
    EXPECT_FALSE(fs::exists(dir + ".tmp"));
    EXPECT_TRUE(fs::is_directory(dir));
}
