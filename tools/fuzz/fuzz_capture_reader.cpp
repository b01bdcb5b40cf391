// libFuzzer target: the capture reader and the analysis must survive any bytes: no crash, no read
// past the end (AddressSanitizer), no undefined behaviour, errors only through Status.
//   ./dev fuzz   or   .ci/fuzz.sh   (clang, -fsanitize=fuzzer; corpus in tests/fuzz_corpus/)
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze.hpp"
#include "capture_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    {
        // Every column parsed ...
        pacer::tools::CaptureReader full;
        if (!full.open_memory(text, "fuzz").ok()) return 0;
        pacer::tools::FrameRecord f;
        while (full.next(f)) {
        }
    }
    // ... and the summary path (summary-only parsing, grouping into series, metrics), once for
    // every series and once with a selection (the first byte picks a pid, the rest of the options
    // stay fixed so that the corpus keeps its meaning) ...
    for (int pass = 0; pass < 2; ++pass) {
        pacer::tools::CaptureReader r;
        if (!r.open_memory(text, "fuzz").ok()) return 0;
        pacer::tools::AnalyzeOptions o;
        o.max_frames = 100000;
        o.keep_frames = pass == 1;
        if (pass == 1) {
            o.process_id = size ? data[0] : 0;
            o.swapchain = "0x1";
        }
        pacer::tools::FileAnalysis fa;
        if (!pacer::tools::analyze_reader(r, o, fa).ok()) continue;
        if (pass == 0) {
            (void)pacer::tools::format_series(fa);
            continue;
        }
        // ... the output, and CapFrameX's definitions over the same frames.
        (void)pacer::tools::format_text(fa.analyses);
        (void)pacer::tools::format_json(fa.analyses, true);
        o.definitions = pacer::tools::Definitions::capframex;
        for (const pacer::tools::Analysis& a : fa.analyses) {
            pacer::tools::Analysis b;
            pacer::tools::compute(a.frame_ms, {}, {}, o, b);
        }
    }
    return 0;
}
