// The command-line parser shared by the `pacer` tool and the demo (cli/cli_options.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cli_options.hpp"

using pacer::Status;
using pacer::cli::Parsed;
using pacer::cli::Parser;

namespace {

enum class Mode { slow, fast };

// A parser over every kind of row, bound to the fields of one struct.
struct Fixture {
    double hz = 60;
    int bins = 20;
    std::uint64_t frames = 0;
    bool json = false;
    std::string app = "demo";
    std::vector<double> times{0.5, 1};
    Mode mode = Mode::slow;
    std::string seen;  // what the custom row was given
    Parser p{"prog", "", "A program to test the parser."};

    Fixture() {
        p.number("--hz", "HZ", "target rate", &hz, 1.0, 1000.0);
        p.number("--bins", "N", "histogram bins", &bins, 1, 100);
        p.number("--frames", "N", "frames", &frames, std::uint64_t{1}, std::numeric_limits<std::uint64_t>::max());
        p.flag("--json", "JSON output", &json);
        p.text("--app", "NAME", "application", &app);
        p.list("--times-ms", "LIST", "wait times", &times, 0.0, 100.0);
        p.choice("--mode", "how fast", &mode, {{"slow", Mode::slow}, {"fast", Mode::fast}});
        p.custom("--thing", "X", "anything but \"bad\"", [this](std::string_view v) {
            if (v == "bad") return Status::error("\"bad\" is refused");
            seen = std::string(v);
            return Status{};
        });
    }
    Parsed parse(std::vector<const char*> args) { return p.parse(static_cast<int>(args.size()), args.data()); }
    std::string error(std::vector<const char*> args) {
        const Parsed r = parse(std::move(args));
        EXPECT_FALSE(r.status.ok());
        return r.status.message();
    }
};

}  // namespace

TEST(CliOptions, AcceptsBothGrammars) {
    Fixture f;
    const Parsed r = f.parse({"--hz", "144", "--bins=50", "--app=x=y", "--frames", "7", "--times-ms=1,2.5",
                              "--mode", "fast", "--thing=ok", "--json"});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_FALSE(r.help);
    EXPECT_DOUBLE_EQ(f.hz, 144.0);
    EXPECT_EQ(f.bins, 50);
    EXPECT_EQ(f.app, "x=y");  // only the first '=' splits
    EXPECT_EQ(f.frames, 7u);
    EXPECT_EQ(f.times, (std::vector<double>{1, 2.5}));
    EXPECT_EQ(f.mode, Mode::fast);
    EXPECT_EQ(f.seen, "ok");
    EXPECT_TRUE(f.json);
}

TEST(CliOptions, TheNextArgumentIsTheValueEvenWithADash) {
    Fixture f;
    EXPECT_TRUE(f.parse({"--app", "--json"}).status.ok());
    EXPECT_EQ(f.app, "--json");
    EXPECT_FALSE(f.json);
    EXPECT_EQ(f.error({"--hz", "-5"}), "--hz = -5: must be in [1, 1000]");
}

TEST(CliOptions, MissingValue) {
    Fixture f;
    EXPECT_EQ(f.error({"--hz"}), "--hz needs a value");
    EXPECT_EQ(f.error({"--json", "--app"}), "--app needs a value");
}

TEST(CliOptions, EmptyValueAfterEqualsIsNotANumber) {
    Fixture f;
    EXPECT_EQ(f.error({"--hz="}), "--hz: \"\" is not a number");
}

TEST(CliOptions, UnknownOptionAndStrayArgument) {
    Fixture f;
    EXPECT_EQ(f.error({"--bogus"}), "unknown option \"--bogus\"");
    EXPECT_EQ(f.error({"--bogus=1"}), "unknown option \"--bogus\"");
    EXPECT_EQ(f.error({"-x"}), "unknown option \"-x\"");
    EXPECT_EQ(f.error({"file.csv"}), "unexpected argument \"file.csv\"");
}

TEST(CliOptions, OperandsWhenTheProgramTakesThem) {
    Parser p("prog", "FILE...", "");
    bool json = false;
    p.flag("--json", "JSON", &json);
    const std::vector<const char*> args{"a.csv", "--json", "-", "b.csv"};
    const Parsed r = p.parse(static_cast<int>(args.size()), args.data());
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(json);
    EXPECT_EQ(r.operands, (std::vector<std::string>{"a.csv", "-", "b.csv"}));
}

TEST(CliOptions, NumberOutOfRange) {
    Fixture f;
    EXPECT_EQ(f.error({"--hz", "1000.5"}), "--hz = 1000.5: must be in [1, 1000]");
    EXPECT_EQ(f.error({"--bins", "0"}), "--bins = 0: must be in [1, 100]");
    EXPECT_EQ(f.error({"--frames", "0"}), "--frames = 0: must be at least 1");
    // Too large for the type: still a range error, not "not a number".
    EXPECT_EQ(f.error({"--bins", "99999999999999999999"}), "--bins = 99999999999999999999: must be in [1, 100]");
    EXPECT_EQ(f.error({"--times-ms", "1,1000"}), "--times-ms = 1000: must be in [0, 100]");
    EXPECT_DOUBLE_EQ(f.hz, 60.0);  // refused values leave the target alone
    EXPECT_EQ(f.times, (std::vector<double>{0.5, 1}));
}

TEST(CliOptions, NotANumber) {
    Fixture f;
    EXPECT_EQ(f.error({"--hz", "fast"}), "--hz: \"fast\" is not a number");
    for (const char* bad : {" 60", "60 ", "+60", "0x10", "1,5", "--1"})
        EXPECT_EQ(f.error({"--hz", bad}), std::string("--hz: \"") + bad + "\" is not a number") << bad;
    EXPECT_EQ(f.error({"--bins", "1.5"}), "--bins: \"1.5\" is not a whole number");
    EXPECT_EQ(f.error({"--bins", "1e3"}), "--bins: \"1e3\" is not a whole number");
    EXPECT_EQ(f.error({"--frames", "-1"}), "--frames: \"-1\" is not a whole number");
    EXPECT_EQ(f.error({"--times-ms", "1,,2"}), "--times-ms: \"\" is not a number");
    EXPECT_EQ(f.error({"--times-ms", "1,2,"}), "--times-ms: \"\" is not a number");
}

TEST(CliOptions, TrailingGarbage) {
    Fixture f;
    EXPECT_EQ(f.error({"--hz", "1.5x"}), "--hz: \"1.5x\" is not a number");
    EXPECT_EQ(f.error({"--hz=60fps"}), "--hz: \"60fps\" is not a number");
    EXPECT_EQ(f.error({"--bins", "12a"}), "--bins: \"12a\" is not a whole number");
    EXPECT_EQ(f.error({"--times-ms", "1,2ms"}), "--times-ms: \"2ms\" is not a number");
}

TEST(CliOptions, NanAndInfinityRefused) {
    Fixture f;
    for (const char* bad : {"nan", "NaN", "inf", "-inf", "infinity", "1e999"})
        EXPECT_EQ(f.error({"--hz", bad}), std::string("--hz: \"") + bad + "\" is not a number") << bad;
    EXPECT_EQ(f.error({"--times-ms", "1,nan"}), "--times-ms: \"nan\" is not a number");
}

TEST(CliOptions, FlagGivenAValue) {
    Fixture f;
    EXPECT_EQ(f.error({"--json=1"}), "--json takes no value");
    EXPECT_EQ(f.error({"--json="}), "--json takes no value");
    EXPECT_FALSE(f.json);
}

TEST(CliOptions, ChoiceAndCustomErrorsNameTheOption) {
    Fixture f;
    EXPECT_EQ(f.error({"--mode", "warp"}), "--mode: \"warp\" is not slow or fast");
    EXPECT_EQ(f.error({"--thing", "bad"}), "--thing: \"bad\" is refused");
}

TEST(CliOptions, NumberCheckRefusesWhatTheRangeCannotSay) {
    double hz = 60;
    Parser p("prog", "", "");
    p.number("--hz", "HZ", "rate", &hz, 0.0, 1000.0,
             [](double v) { return v == 0 || v >= 20 ? Status{} : Status::error("0 or at least 20"); });
    const std::vector<const char*> bad{"--hz", "5"};
    EXPECT_EQ(p.parse(2, bad.data()).status.message(), "--hz: 0 or at least 20");
    EXPECT_DOUBLE_EQ(hz, 60.0);
    const std::vector<const char*> good{"--hz=0"};
    EXPECT_TRUE(p.parse(1, good.data()).status.ok());
    EXPECT_DOUBLE_EQ(hz, 0.0);
}

TEST(CliOptions, HelpStopsParsing) {
    Fixture f;
    for (const char* h : {"--help", "-h"}) {
        const Parsed r = f.parse({"--hz", "30", h, "--bogus"});
        EXPECT_TRUE(r.help) << h;
        EXPECT_TRUE(r.status.ok()) << h;
        EXPECT_TRUE(r.stopped()) << h;
    }
}

TEST(CliOptions, UsageListsEveryOptionWithRangeAndDefault) {
    Fixture f;
    const std::string u = f.p.usage();
    EXPECT_EQ(u.rfind("usage: prog [options]\nA program to test the parser.\n", 0), 0u) << u;
    for (const pacer::cli::Option& o : f.p.options()) {
        const std::string left = "  " + o.name + (o.value.empty() ? "" : " " + o.value);
        EXPECT_NE(u.find(left), std::string::npos) << o.name << "\n" << u;
    }
    EXPECT_EQ(f.p.options().size(), 8u);
    EXPECT_NE(u.find("-h, --help"), std::string::npos);
    EXPECT_NE(u.find("target rate, in [1, 1000] (default: 60)"), std::string::npos) << u;
    EXPECT_NE(u.find("frames, at least 1 (default: 0)"), std::string::npos) << u;
    EXPECT_NE(u.find("wait times, each in [0, 100] (default: 0.5,1)"), std::string::npos) << u;
    EXPECT_NE(u.find("--mode slow|fast"), std::string::npos) << u;
    EXPECT_NE(u.find("how fast (default: slow)"), std::string::npos) << u;
    EXPECT_NE(u.find("application (default: demo)"), std::string::npos) << u;
}

TEST(CliOptions, UsageIndentsLongPlaceholdersAndMoreLines) {
    bool b = false;
    Parser p("prog", "", "");
    p.flag("--a", "first line\nsecond line", &b);
    p.custom("--very-long-option-name", "PLACEHOLDER", "help", [](std::string_view) { return Status{}; });
    const std::string u = p.usage();
    EXPECT_NE(u.find("  --a         first line\n              second line\n"), std::string::npos) << u;
    EXPECT_NE(u.find("  --very-long-option-name PLACEHOLDER\n              help\n"), std::string::npos) << u;
}
