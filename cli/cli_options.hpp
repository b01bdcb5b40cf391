// cli/cli_options.hpp - the command-line parser of the `pacer` tool and the demo: one table of
// options, from which both the parser and the usage text are made, so --help cannot disagree with
// what is accepted.
//
//   double hz = 60;
//   bool json = false;
//   pacer::cli::Parser p("pacer run", "", "Paces a loop without a window.");
//   p.number("--hz", "HZ", "target rate", &hz, 1e-3, 1e4);
//   p.flag("--json", "JSON instead of text", &json);
//   const pacer::cli::Parsed r = p.parse(argc, argv);   // argv: the options only
//   if (r.stopped()) return pacer::cli::stop(p, r.status);
//
// Grammar: `--name value` and `--name=value`. The next argument is the value whatever it looks
// like, so negative numbers need no '='. A flag takes no value (`--json=1` is refused). `--help`
// and `-h` end parsing. Arguments that do not start with '-' (and "-" itself) are operands,
// refused unless the parser was given an operand synopsis.
//
// Numbers are the whole argument, read by std::from_chars (C locale: no blanks, no '+', no hex),
// finite and inside the stated range; integers are whole. Messages name the option:
//   --target-hz: "fast" is not a number
//   --periods-ms = 1000: must be in [0, 100]
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pacer/names.hpp"
#include "pacer/status.hpp"

namespace pacer::cli {

// T is one of double, int, long long, std::uint64_t (the instantiations in cli_options.cpp).
template <class T>
Status parse_number(std::string_view option, std::string_view text, T lo, T hi, T* out);
// "1,2.5,10": each item as parse_number (the message shows the item). *out is kept on error.
template <class T>
Status parse_list(std::string_view option, std::string_view text, T lo, T hi, std::vector<T>* out);
// Shortest form that reads back the same, C locale: 60, 0.5, 1e-06.
template <class T>
std::string format_number(T v);
// "in [lo, hi]"; a bound at the type's limit is left out ("at least 1"); "" when both are.
template <class T>
std::string format_range(T lo, T hi);
std::string quoted(std::string_view text);  // "text", for messages

// The bounds of a number whose rule is a check (e.g. the library's validate()) rather than a range.
inline constexpr double kNoLow = std::numeric_limits<double>::lowest();
inline constexpr double kNoHigh = std::numeric_limits<double>::max();

// One row of the table.
struct Option {
    std::string name;          // "--hz"
    std::string value;         // the value's placeholder in the usage, "HZ"; empty: a flag
    std::string help;          // '\n' starts another line
    std::string range;         // "in [1, 100]", printed after the help
    std::string default_text;  // printed as "(default ...)"; empty: nothing printed
    // Takes the value (empty for a flag); an error's message names the option.
    std::function<Status(std::string_view)> apply;
};

struct Parsed {
    Status status;                      // the first error
    bool help = false;                  // --help or -h: print the usage and exit 0
    std::vector<std::string> operands;  // the arguments that are not options
    bool stopped() const noexcept { return help || !status.ok(); }
};

// A further test of a parsed value; T is taken from the target, not from the lambda.
template <class T>
using Check = std::type_identity_t<std::function<Status(T)>>;

class Parser {
public:
    // program: "pacer run", the first word(s) of the usage and of stop()'s messages. operands:
    // what follows the options in the synopsis ("FILE..."); empty = the program takes none.
    Parser(std::string program, std::string operands, std::string description);

    // The rows. Each takes its default from *target as it is now and returns the row, valid until
    // the next row is added, so that the caller can change what the usage says about it.
    Option& flag(std::string name, std::string help, bool* target);
    Option& text(std::string name, std::string value, std::string help, std::string* target);
    // `check` (optional) refuses values the range cannot express; its message gets the option's
    // name in front.
    template <class T>
    Option& number(std::string name, std::string value, std::string help, T* target, T lo, T hi,
                   Check<T> check = {});
    template <class T>
    Option& list(std::string name, std::string value, std::string help, std::vector<T>* target, T lo, T hi,
                 Check<T> check = {});
    // One of the named values; T needs ==. The placeholder is the names joined by '|'.
    template <class T>
    Option& choice(std::string name, std::string help, T* target, std::vector<std::pair<std::string, T>> values);
    // Anything else: `apply`'s message gets the option's name in front.
    Option& custom(std::string name, std::string value, std::string help,
                   std::function<Status(std::string_view)> apply);

    Parsed parse(int argc, const char* const* argv) const;  // argv: the options, no program name
    std::string usage() const;

    const std::string& program() const noexcept { return program_; }
    const std::vector<Option>& options() const noexcept { return options_; }
    std::string epilogue;  // lines after the options in the usage

private:
    Option& add(Option o);
    const Option* find(std::string_view name) const;
    static Status named(std::string_view option, const Status& s);

    std::string program_, operands_, description_;
    std::vector<Option> options_;
};

// The end of a program's command line when parse() or a later check stopped it: with no error
// (help) the usage goes to stdout and 0 is returned; otherwise "program: message" and the usage go
// to stderr and 2 is returned.
int stop(const Parser& p, const Status& why);

// ---- templates --------------------------------------------------------------------------------

template <class T>
Option& Parser::number(std::string name, std::string value, std::string help, T* target, T lo, T hi,
                       Check<T> check) {
    Option o{name, std::move(value), std::move(help), format_range(lo, hi), format_number(*target), {}};
    o.apply = [name, target, lo, hi, check = std::move(check)](std::string_view v) {
        T x{};
        if (Status s = parse_number(name, v, lo, hi, &x); !s) return s;
        if (check)
            if (Status s = check(x); !s) return named(name, s);
        *target = x;
        return Status{};
    };
    return add(std::move(o));
}

template <class T>
Option& Parser::list(std::string name, std::string value, std::string help, std::vector<T>* target, T lo, T hi,
                     Check<T> check) {
    std::string def;
    for (const T& x : *target) {
        if (!def.empty()) def += ',';
        def += format_number(x);
    }
    std::string range = format_range(lo, hi);
    if (!range.empty()) range = std::string("each ").append(range);  // not "each " + range: GCC 12 -Wrestrict
    Option o{name, std::move(value), std::move(help), std::move(range), std::move(def), {}};
    o.apply = [name, target, lo, hi, check = std::move(check)](std::string_view v) {
        std::vector<T> xs;
        if (Status s = parse_list(name, v, lo, hi, &xs); !s) return s;
        if (check)
            for (const T& x : xs)
                if (Status s = check(x); !s) return named(name, s);
        *target = std::move(xs);
        return Status{};
    };
    return add(std::move(o));
}

// The names of a library enum from its table (pacer/names.hpp); `only` restricts the values
// offered, in the table's order and words.
template <class E, std::size_t N>
std::vector<std::pair<std::string, E>> names_of(const EnumName<E> (&table)[N], std::initializer_list<E> only = {}) {
    std::vector<std::pair<std::string, E>> out;
    for (const EnumName<E>& e : table) {
        bool wanted = only.size() == 0;
        for (E x : only) wanted = wanted || x == e.value;
        if (wanted) out.emplace_back(e.name, e.value);
    }
    return out;
}

template <class T>
Option& Parser::choice(std::string name, std::string help, T* target, std::vector<std::pair<std::string, T>> values) {
    std::string placeholder, def, expected;
    for (std::size_t i = 0; i < values.size(); ++i) {
        placeholder += (i ? "|" : "") + values[i].first;
        expected += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + values[i].first;
        if (def.empty() && values[i].second == *target) def = values[i].first;
    }
    Option o{name, std::move(placeholder), std::move(help), {}, std::move(def), {}};
    o.apply = [name, target, values = std::move(values), expected](std::string_view v) {
        for (const auto& [text, x] : values)
            if (v == text) {
                *target = x;
                return Status{};
            }
        return Status::error(name + ": " + quoted(v) + " is not " + expected);
    };
    return add(std::move(o));
}

// True if `path` can be created or overwritten (an existing file is left untouched): an output
// path is checked before a run, not found unwritable after it.
bool path_writable(const std::string& path, std::string* why);

}  // namespace pacer::cli
