#include "cli_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>
#include <type_traits>

namespace pacer::cli {

namespace {

// Placeholders wider than this put their help on the next line.
constexpr std::size_t kMaxLeftColumn = 26;

// Built by appending: GCC 12 at -O2 misreads `"[" + std::string(...)` (operator+ with the literal
// first inserts at offset 0) as an overlapping memcpy and warns with -Wrestrict.
std::string bounds(std::string_view lo, std::string_view hi) {
    std::string s(1, '[');
    s.append(lo).append(", ").append(hi).push_back(']');
    return s;
}

}  // namespace

std::string quoted(std::string_view text) {
    std::string s(1, '"');  // appended, not "\"" + ...: see bounds()
    s.append(text).push_back('"');
    return s;
}

template <class T>
std::string format_number(T v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

template <class T>
std::string format_range(T lo, T hi) {
    const bool no_lo = lo == std::numeric_limits<T>::lowest();
    const bool no_hi = hi == std::numeric_limits<T>::max();
    if (no_lo && no_hi) return {};
    if (no_lo) return "at most " + format_number(hi);
    if (no_hi) return "at least " + format_number(lo);
    return "in " + bounds(format_number(lo), format_number(hi));
}

template <class T>
Status parse_number(std::string_view option, std::string_view text, T lo, T hi, T* out) {
    constexpr bool whole = std::is_integral_v<T>;
    T v{};
    const char* end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, v);
    const bool read_all = !text.empty() && r.ptr == end;
    // An integer too large for T is a range error; a double that overflows is no number at all,
    // like nan and inf.
    const bool too_big = whole && read_all && r.ec == std::errc::result_out_of_range;
    bool finite = true;
    if constexpr (!whole) finite = std::isfinite(v);
    if (!too_big && (!read_all || r.ec != std::errc() || !finite))
        return Status::error(std::string(option) + ": " + quoted(text) +
                             (whole ? " is not a whole number" : " is not a number"));
    if (too_big || v < lo || v > hi) {
        std::string range = format_range(lo, hi);
        if (range.empty()) range = "in " + bounds(format_number(lo), format_number(hi));
        return Status::error(std::string(option) + " = " + std::string(text) + ": must be " + range);
    }
    *out = v;
    return {};
}

template <class T>
Status parse_list(std::string_view option, std::string_view text, T lo, T hi, std::vector<T>* out) {
    std::vector<T> xs;
    for (std::size_t pos = 0;;) {
        const std::size_t comma = text.find(',', pos);
        T x{};
        if (Status s = parse_number(option, text.substr(pos, comma - pos), lo, hi, &x); !s) return s;
        xs.push_back(x);
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    *out = std::move(xs);
    return {};
}

#define PACER_CLI_NUMBER(T)                                                                       \
    template std::string format_number<T>(T);                                                     \
    template std::string format_range<T>(T, T);                                                   \
    template Status parse_number<T>(std::string_view, std::string_view, T, T, T*);                \
    template Status parse_list<T>(std::string_view, std::string_view, T, T, std::vector<T>*);
PACER_CLI_NUMBER(double)
PACER_CLI_NUMBER(int)
PACER_CLI_NUMBER(long long)
PACER_CLI_NUMBER(std::uint64_t)
#undef PACER_CLI_NUMBER

Parser::Parser(std::string program, std::string operands, std::string description)
    : program_(std::move(program)), operands_(std::move(operands)), description_(std::move(description)) {}

Option& Parser::add(Option o) {
    options_.push_back(std::move(o));
    return options_.back();
}

const Option* Parser::find(std::string_view name) const {
    for (const Option& o : options_)
        if (o.name == name) return &o;
    return nullptr;
}

Status Parser::named(std::string_view option, const Status& s) {
    return s ? s : Status::error(std::string(option) + ": " + s.message());
}

Option& Parser::flag(std::string name, std::string help, bool* target) {
    return add({std::move(name), {}, std::move(help), {}, {}, [target](std::string_view) {
                    *target = true;
                    return Status{};
                }});
}

Option& Parser::text(std::string name, std::string value, std::string help, std::string* target) {
    return add({std::move(name), std::move(value), std::move(help), {}, *target, [target](std::string_view v) {
                    *target = std::string(v);
                    return Status{};
                }});
}

Option& Parser::custom(std::string name, std::string value, std::string help,
                       std::function<Status(std::string_view)> apply) {
    Option o{name, std::move(value), std::move(help), {}, {}, {}};
    o.apply = [name, apply = std::move(apply)](std::string_view v) { return named(name, apply(v)); };
    return add(std::move(o));
}

Parsed Parser::parse(int argc, const char* const* argv) const {
    Parsed r;
    for (int i = 0; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            r.help = true;
            return r;
        }
        if (arg.size() < 2 || arg[0] != '-') {
            if (operands_.empty()) {
                r.status = Status::error("unexpected argument " + quoted(arg));
                return r;
            }
            r.operands.emplace_back(arg);
            continue;
        }
        const std::size_t eq = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string_view::npos;
        const std::string name(arg.substr(0, eq));
        const Option* o = find(name);
        std::string_view value;
        if (o == nullptr)
            r.status = Status::error("unknown option " + quoted(name));
        else if (o->value.empty() && eq != std::string_view::npos)
            r.status = Status::error(name + " takes no value");
        else if (eq != std::string_view::npos)
            value = arg.substr(eq + 1);
        else if (!o->value.empty() && i + 1 < argc)
            value = argv[++i];
        else if (!o->value.empty())
            r.status = Status::error(name + " needs a value");
        if (r.status.ok()) r.status = o->apply(value);
        if (!r.status.ok()) return r;
    }
    return r;
}

std::string Parser::usage() const {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const Option& o : options_) {
        std::string right = o.help;
        if (!o.range.empty()) right += (right.empty() ? "" : ", ") + o.range;
        if (!o.default_text.empty()) right += " (default: " + o.default_text + ")";
        rows.emplace_back("  " + o.name + (o.value.empty() ? "" : " " + o.value), std::move(right));
    }
    rows.emplace_back("  -h, --help", "this text");
    std::size_t width = 0;
    for (const auto& row : rows)
        if (row.first.size() <= kMaxLeftColumn) width = std::max(width, row.first.size());
    width += 2;
    const std::string indent(width, ' ');

    std::string u = "usage: " + program_ + " [options]" + (operands_.empty() ? "" : " " + operands_) + "\n";
    if (!description_.empty()) u += description_ + "\n";
    u += "\noptions:\n";
    for (const auto& [left, right] : rows) {
        u += left;
        u += left.size() + 2 > width ? "\n" + indent : std::string(width - left.size(), ' ');
        for (const char c : right) u += c == '\n' ? "\n" + indent : std::string(1, c);
        u += '\n';
    }
    u += "Options take their value as the next argument or after '=' (--name value, --name=value).\n";
    if (!epilogue.empty()) u += epilogue + "\n";
    return u;
}

int stop(const Parser& p, const Status& why) {
    if (why.ok()) {
        std::fputs(p.usage().c_str(), stdout);
        return 0;
    }
    std::fprintf(stderr, "%s: %s\n", p.program().c_str(), why.message().c_str());
    std::fputs(p.usage().c_str(), stderr);
    return 2;
}

}  // namespace pacer::cli
