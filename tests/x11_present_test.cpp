// pacer::x11::PresentSource without a server: what it says when it cannot start. (With a server:
// tests/display/x11_present_test.py and the demo's X11 tests.)
#include "pacer/x11_present.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

// A display number no test starts a server on: the connection fails at once (no socket).
constexpr const char* kNoServer = ":9876";

TEST(X11PresentSource, RefusesACountOfRequestsOutOfRange) {
    for (const int ahead : {0, -1, 9, 1000}) {
        SCOPED_TRACE(ahead);
        pacer::x11::PresentSource s(kNoServer, ahead);
        EXPECT_FALSE(s.ok());
        EXPECT_STREQ(s.error(), "PresentSource: ahead must be 1 to 8 requests");
        EXPECT_EQ(s.connection(), nullptr);  // refused before connecting
        EXPECT_EQ(s.fd(), -1);
        EXPECT_FALSE(s.watch(1));
        pacer::FramePacer pacer;
        EXPECT_EQ(s.poll(pacer), 0);
        EXPECT_EQ(s.present(pacer, 1, 1), 0u);
    }
}

TEST(X11PresentSource, NoServerIsAClearErrorForEveryValidCount) {
    for (const int ahead : {1, pacer::x11::PresentSource::kMaxAhead}) {
        SCOPED_TRACE(ahead);
        pacer::x11::PresentSource s(kNoServer, ahead);
        EXPECT_FALSE(s.ok());
        EXPECT_EQ(std::string(s.error()), "cannot connect to the X server");
        pacer::FramePacer pacer;
        EXPECT_EQ(s.poll(pacer), 0);
        EXPECT_FALSE(s.wait(std::chrono::milliseconds(1)));
    }
}

}  // namespace
