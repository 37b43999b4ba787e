// runtime/replay.cpp: see replay.h.
#include "runtime/replay.h"

#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/launch_list.h"
#include "runtime/recorder.h"
#if WEFT_HAVE_CUDA
#include "runtime/cuda/stream.h"
#endif

namespace weft::runtime {

#if WEFT_HAVE_CUDA
struct Replay::Graph {
    runtime::Graph graph;
};
#else
struct Replay::Graph {};
#endif

Replay::Replay(const Device& device, std::function<void()> work, const ReplayOptions& options)
    : device_(device), work_(std::move(work)) {
    if (!work_) throw RuntimeError("Replay: no work to record");
    if (options.launch_list) {
        LaunchListOptions lo;
        lo.max_blocks = options.list_max_blocks;
        auto list = std::make_shared<LaunchList>(device, work_, lo);
        if (list->valid()) {
            list_ = std::move(list);
            return;
        }
        why_not_listed_ = list->why_not();
    }
#if WEFT_HAVE_CUDA
    if (!device.supports(Capability::GraphCapture) || config().debug || active_recorder() != nullptr) return;
    Stream s(device);
    begin_capture(s);
    try {
        work_();
    } catch (...) {
        try {
            end_capture(s);  // leave the stream usable; the work's own error is the one to report
        } catch (...) {}
        throw;
    }
    graph_ = std::make_shared<Graph>(Graph{end_capture(s)});
#endif
}

Replay::~Replay() = default;
Replay::Replay(Replay&&) noexcept = default;
Replay& Replay::operator=(Replay&&) noexcept = default;

void Replay::run() const {
    if (!work_) throw RuntimeError("Replay::run: nothing was recorded");
    if (list_) {
        list_->run();
        return;
    }
#if WEFT_HAVE_CUDA
    if (graph_) {
        graph_->graph.launch();
        return;
    }
#endif
    work_();
}

size_t Replay::node_count() const {
#if WEFT_HAVE_CUDA
    if (graph_) return graph_->graph.node_count();
#endif
    return 0;
}

}  // namespace weft::runtime
