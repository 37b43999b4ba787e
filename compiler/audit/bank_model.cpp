// The shared-memory bank rule (see bank_model.h). Kept free of every other Weft header on purpose.
#include "compiler/audit/bank_model.h"

#include <algorithm>
#include <map>
#include <set>

namespace weft::compiler::audit {

BankCost bank_wavefronts(const LaneAddresses& addresses, int width_bytes, int banks, int bank_width) {
    if (width_bytes < 1) width_bytes = 1;
    if (banks < 1) banks = 1;
    if (bank_width < 1) bank_width = 1;
    // Lanes per phase: a phase moves at most banks * bank_width bytes (128 on NVIDIA GPUs).
    int phase_bytes = banks * bank_width;
    int lanes_per_phase = width_bytes <= bank_width ? 32 : std::max(1, phase_bytes / width_bytes);
    lanes_per_phase = std::min(lanes_per_phase, 32);
    BankCost cost;
    for (int first = 0; first < 32; first += lanes_per_phase) {
        std::map<uint64_t, std::set<uint64_t>> words_of_bank;
        bool any = false;
        for (int lane = first; lane < std::min(32, first + lanes_per_phase); ++lane) {
            if (!addresses[static_cast<size_t>(lane)]) continue;
            any = true;
            uint64_t a = *addresses[static_cast<size_t>(lane)];
            uint64_t w0 = a / static_cast<uint64_t>(bank_width);
            uint64_t w1 = (a + static_cast<uint64_t>(width_bytes) - 1) / static_cast<uint64_t>(bank_width);
            for (uint64_t w = w0; w <= w1; ++w) words_of_bank[w % static_cast<uint64_t>(banks)].insert(w);
        }
        if (!any) continue;
        size_t worst = 1;
        for (const auto& [bank, words] : words_of_bank) worst = std::max(worst, words.size());
        cost.wavefronts += static_cast<int>(worst);
        cost.ideal += 1;
    }
    return cost;
}

}  // namespace weft::compiler::audit
