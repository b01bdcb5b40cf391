// tools/lib/capture_capframex.cpp - CapFrameX's own session format (JSON), read whole: its runs'
// CaptureData arrays are the table's columns, found by name or alias like a CSV header's.
#include "capture_reader.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <limits>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

#include "capture_internal.hpp"

namespace pacer::tools {

using namespace detail;

namespace detail {

// Just enough JSON for a CapFrameX session: objects, arrays, strings, numbers, literals. Depth and
// size are bounded; an error says what was expected and where (byte offset, turned into a line).
class JsonParser {
public:
    explicit JsonParser(const std::string& s) : s_(s) {}
    std::size_t pos = 0;
    std::string error;
    std::size_t error_pos = 0;

    bool fail(const std::string& what) {
        if (error.empty()) {
            error = what;
            error_pos = pos;
        }
        return false;
    }
    void ws() {
        while (pos < s_.size() && (s_[pos] == ' ' || s_[pos] == '\t' || s_[pos] == '\n' || s_[pos] == '\r')) ++pos;
    }
    bool next_is(char c) {
        ws();
        return pos < s_.size() && s_[pos] == c;
    }
    bool eat(char c) {
        ws();
        if (pos < s_.size() && s_[pos] == c) {
            ++pos;
            return true;
        }
        return false;
    }
    bool expect(char c) {
        return eat(c) || fail(std::string("expected '") + c + "'" + found());
    }
    std::string found() const {
        if (pos >= s_.size()) return " at the end of the file";
        const unsigned char c = static_cast<unsigned char>(s_[pos]);
        if (c < 0x20 || c >= 0x7f) return "";
        return std::string(", found '") + static_cast<char>(c) + "'";
    }
    std::uint64_t line_of(std::size_t p) const {
        return 1 + static_cast<std::uint64_t>(std::count(s_.begin(), s_.begin() + static_cast<std::ptrdiff_t>(std::min(p, s_.size())), '\n'));
    }
    bool string(std::string* out) {
        ws();
        if (pos >= s_.size() || s_[pos] != '"') return fail("expected a string" + found());
        ++pos;
        for (;;) {
            if (pos >= s_.size()) return fail("string not closed");
            const char c = s_[pos++];
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
            if (c != '\\') {
                if (out) *out += c;
                continue;
            }
            if (pos >= s_.size()) return fail("string not closed");
            const char e = s_[pos++];
            char plain = 0;
            switch (e) {
                case '"': plain = '"'; break;
                case '\\': plain = '\\'; break;
                case '/': plain = '/'; break;
                case 'b': plain = '\b'; break;
                case 'f': plain = '\f'; break;
                case 'n': plain = '\n'; break;
                case 'r': plain = '\r'; break;
                case 't': plain = '\t'; break;
                case 'u': {
                    unsigned v = 0;
                    for (int k = 0; k < 4; ++k, ++pos) {
                        if (pos >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos])))
                            return fail("bad \\u escape");
                        const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[pos])));
                        v = v * 16 + static_cast<unsigned>(h <= '9' ? h - '0' : h - 'a' + 10);
                    }
                    if (out) {  // UTF-8; a surrogate half becomes '?'
                        if (v < 0x80) *out += static_cast<char>(v);
                        else if (v < 0x800) {
                            *out += static_cast<char>(0xC0 | (v >> 6));
                            *out += static_cast<char>(0x80 | (v & 0x3F));
                        } else if (v >= 0xD800 && v < 0xE000) {
                            *out += '?';
                        } else {
                            *out += static_cast<char>(0xE0 | (v >> 12));
                            *out += static_cast<char>(0x80 | ((v >> 6) & 0x3F));
                            *out += static_cast<char>(0x80 | (v & 0x3F));
                        }
                    }
                    continue;
                }
                default: return fail("bad escape in a string");
            }
            if (out) *out += plain;
        }
    }
    bool literal(const char* word) {
        const std::size_t n = std::strlen(word);
        if (s_.compare(pos, n, word) != 0) return fail("expected a value" + found());
        pos += n;
        return true;
    }
    // A number token as a double; true/false as 1/0, null as NaN ("not measured").
    bool scalar(double& v) {
        ws();
        if (pos >= s_.size()) return fail("expected a value at the end of the file");
        const char c = s_[pos];
        if (c == 't') return v = 1, literal("true");
        if (c == 'f') return v = 0, literal("false");
        if (c == 'n') return v = kNaN, literal("null");
        std::size_t end = pos;
        while (end < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[end])) || s_[end] == '-' ||
                                   s_[end] == '+' || s_[end] == '.' || s_[end] == 'e' || s_[end] == 'E'))
            ++end;
        if (end == pos) return fail("expected a number" + found());
        const char* b = s_.data() + pos;
        const auto r = std::from_chars(b, s_.data() + end, v);
        if (r.ec == std::errc::result_out_of_range) return fail("number out of range");
        if (r.ec != std::errc() || r.ptr != s_.data() + end) return fail("not a number: " + std::string(b, std::min<std::size_t>(end - pos, 40)));
        pos = end;
        return true;
    }
    bool skip(int depth = 0) {
        if (depth > 64) return fail("nested deeper than 64 levels");
        ws();
        if (pos >= s_.size()) return fail("expected a value at the end of the file");
        const char c = s_[pos];
        if (c == '"') return string(nullptr);
        if (c == '{') {
            ++pos;
            if (eat('}')) return true;
            do {
                if (!string(nullptr) || !expect(':') || !skip(depth + 1)) return false;
            } while (eat(','));
            return expect('}');
        }
        if (c == '[') {
            ++pos;
            if (eat(']')) return true;
            do {
                if (!skip(depth + 1)) return false;
            } while (eat(','));
            return expect(']');
        }
        double v;
        return scalar(v);
    }
    // [numbers]: each checked (finite; >= 0 for a duration; |v| <= max). null is NaN.
    bool numbers(std::vector<double>& out, const char* name, bool duration, double max) {
        ws();
        if (eat('n')) {  // "null": no data
            --pos;
            out.clear();
            return literal("null");
        }
        if (!expect('[')) return false;
        out.clear();
        if (eat(']')) return true;
        do {
            ws();
            const std::size_t at = pos;
            double v;
            if (!scalar(v)) return false;
            if (!std::isnan(v) && ((duration && v < 0) || std::fabs(v) > max)) {
                pos = at;
                char b[64];
                std::snprintf(b, sizeof b, "%.17g", v);
                return fail(std::string(name) + "[" + std::to_string(out.size()) + "] = " + b +
                            (duration && v < 0 ? ": negative" : ": too large"));
            }
            out.push_back(v);
        } while (eat(','));
        return expect(']');
    }

private:
    const std::string& s_;
};

}  // namespace detail


bool CaptureReader::Json::session(JsonParser& p) {
    if (!p.expect('{')) return false;
    if (p.eat('}')) return true;
    do {
        std::string key;
        if (!p.string(&key) || !p.expect(':')) return false;
        bool ok = false;
        if (ci_equal(key, "Info") && p.next_is('{')) ok = info(p);
        else if (ci_equal(key, "Runs") && p.next_is('[')) ok = all_runs(p);
        else ok = p.skip();
        if (!ok) return false;
    } while (p.eat(','));
    if (!p.expect('}')) return false;
    p.ws();
    return p.pos == text.size() || p.fail("text after the end of the JSON object");
}

bool CaptureReader::Json::info(JsonParser& p) {
    p.expect('{');
    if (p.eat('}')) return true;
    do {
        std::string k;
        if (!p.string(&k) || !p.expect(':')) return false;
        std::string* into = ci_equal(k, "ProcessName") ? &process_name : ci_equal(k, "GameName") ? &game_name : nullptr;
        if (into && p.next_is('"') ? !p.string(into) : !p.skip()) return false;
    } while (p.eat(','));
    return p.expect('}');
}

bool CaptureReader::Json::all_runs(JsonParser& p) {
    p.expect('[');
    if (p.eat(']')) return true;
    do {
        if (!one_run(p)) return false;
    } while (p.eat(','));
    return p.expect(']');
}

bool CaptureReader::Json::one_run(JsonParser& p) {
    Run run;
    if (!p.expect('{')) return false;
    if (!p.eat('}')) {
        do {
            std::string key;
            if (!p.string(&key) || !p.expect(':')) return false;
            const bool data = ci_equal(key, "CaptureData") && p.next_is('{');
            if (data ? !capture_data(p, run) : !p.skip()) return false;
        } while (p.eat(','));
        if (!p.expect('}')) return false;
    }
    if (run.line == 0)
        return p.fail("run " + std::to_string(runs.size() + 1) + " has no CaptureData.MsBetweenPresents");
    runs.push_back(std::move(run));
    return true;
}

bool CaptureReader::Json::capture_data(JsonParser& p, Run& run) {
    p.expect('{');
    if (p.eat('}')) return true;
    do {
        std::string key;
        if (!p.string(&key) || !p.expect(':') || !array(p, key, run)) return false;
    } while (p.eat(','));
    return p.expect('}');
}

// One CaptureData array: the numbers of a column of the table, checked as the CSV reader checks
// them; any other array is skipped.
bool CaptureReader::Json::array(JsonParser& p, const std::string& key, Run& run) {
    p.ws();
    const std::size_t at = p.pos;
    const Alias* a = find_alias(key);
    if (!a || unit_of(a->column) == CaptureUnit::text) return p.skip();
    const Limits lim = limits_of(unit_of(a->column));
    if (!p.numbers(run.values[col_index(a->column)], key.c_str(), lim.non_negative, lim.max)) return false;
    if (a->column == CaptureColumnId::frame_ms) run.line = p.line_of(at);
    if (a->column == CaptureColumnId::time_s) run.time_scale = a->scale;
    return true;
}

Status CaptureReader::read_whole(std::string& text) {
    auto too_big = [&] {
        error_ = Status::error(name_ + ": a CapFrameX JSON file larger than " +
                               std::to_string(kMaxJsonBytes / (1024 * 1024)) + " MiB is not read");
        return error_;
    };
    if (file_) {  // a regular file's size is known: refuse before reading it
        std::error_code ec;
        const auto size = std::filesystem::file_size(name_, ec);
        if (!ec && size > kMaxJsonBytes) return too_big();
    }
    text.assign(buf_.get() + begin_, end_ - begin_);
    begin_ = end_;
    while (!eof_) {
        if (text.size() > kMaxJsonBytes) return too_big();
        if (!fill()) break;
        text.append(buf_.get() + begin_, end_ - begin_);
        begin_ = end_;
    }
    if (!error_.ok()) return error_;
    if (text.size() > kMaxJsonBytes) return too_big();
    buf_.reset();  // the text holds it all now
    cap_ = begin_ = end_ = 0;
    return {};
}

Status CaptureReader::start_json() {
    auto json = std::make_unique<Json>();
    if (Status st = read_whole(json->text); !st) return st;
    format_ = CaptureFormat::capframex_json;
    header_line_ = 1;
    JsonParser p(json->text);
    if (!json->session(p)) {
        line_ = p.line_of(p.error_pos);
        fail("CapFrameX JSON: " + p.error);
        return error_;
    }
    if (json->runs.empty()) {
        line_ = p.line_of(json->text.size());
        fail("CapFrameX JSON without Runs[].CaptureData.MsBetweenPresents");
        return error_;
    }
    json->application = !json->process_name.empty() ? json->process_name : json->game_name;
    json->text.clear();
    json->text.shrink_to_fit();
    json_ = std::move(json);
    return {};
}

void CaptureReader::Json::next_run() {
    const std::size_t frame = col_index(CaptureColumnId::frame_ms), time = col_index(CaptureColumnId::time_s);
    while (current < runs.size() && index >= runs[current].values[frame].size()) {
        // The next run follows this one: its first frame one frame time after this run's last.
        const Run& done = runs[current];
        const std::vector<double>& t = done.values[time];
        const double end = t.empty() ? kNaN : t.back() * done.time_scale + offset_s;
        ++current;
        index = 0;
        if (current < runs.size()) {
            const Run& r = runs[current];
            const double t0 = r.values[time].empty() ? kNaN : r.values[time].front() * r.time_scale;
            const double f0 = r.values[frame].empty() ? kNaN : r.values[frame].front();
            offset_s = std::isfinite(end) && std::isfinite(t0) ? end - t0 + (std::isfinite(f0) ? f0 / 1000 : 0) : 0;
        }
    }
}

bool CaptureReader::next_json(FrameRecord& f) {
    Json& j = *json_;
    j.next_run();
    if (j.current >= j.runs.size()) return false;
    const Json::Run& r = j.runs[j.current];
    const std::size_t i = j.index++;
    f = FrameRecord();
    f.line = r.line;
    for (std::size_t c = 0; c < pacer::kCaptureColumnCount; ++c)
        if (kMembers[c].number && i < r.values[c].size()) f.*kMembers[c].number = r.values[c][i];
    f.time_s = f.time_s * r.time_scale + j.offset_s;
    f.application = j.application;
    return true;
}

}  // namespace pacer::tools
