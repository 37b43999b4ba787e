// runtime/cuda/stream.cpp: streams, events, graph capture. See stream.h.
#include "runtime/cuda/stream.h"

#include <utility>
#include <vector>

#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/cuda_context.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/errors.h"

namespace weft::runtime {

namespace {

CudaContext& context_of(const Device& d, const char* what) {
    if (d.kind != DeviceKind::Cuda) throw RuntimeError(std::string(what) + " needs a cuda device, not '" + d.str() + "'");
    CudaContext& ctx = CudaContext::get(d.ordinal);
    ctx.ensure_usable();
    ctx.bind();
    return ctx;
}

// Releases a handle without throwing (destructors), unless the device has faulted.
CudaContext* context_for_release(const Device& d) {
    if (!CudaContext::exists(d.ordinal)) return nullptr;
    try {
        CudaContext& ctx = CudaContext::get(d.ordinal);
        ctx.ensure_usable();
        ctx.bind();
        return &ctx;
    } catch (const RuntimeError&) { return nullptr; }
}

struct Capture {
    int ordinal;
    CUstream stream;
    CUstream previous;  // the current stream before begin_capture
};
thread_local std::vector<Capture> tls_captures;

}  // namespace

// ---- Stream ---------------------------------------------------------------------------------

Stream::Stream(const Device& device) : device_(device), owned_(true) {
    CudaContext& ctx = context_of(device, "a Stream");
    ctx.check(cuda_driver().cuStreamCreate(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate");
}

Stream Stream::borrow(const Device& device, CUstream s) {
    context_of(device, "a Stream");
    return Stream(device, s, false);
}

Stream Stream::default_stream(const Device& device) {
    return Stream(device, context_of(device, "a Stream").default_stream(), false);
}

Stream Stream::current(const Device& device) { return Stream(device, context_of(device, "a Stream").current_stream(), false); }

Stream::~Stream() {
    if (owned_ && stream_)
        if (context_for_release(device_)) cuda_driver().cuStreamDestroy(stream_);
}

Stream::Stream(Stream&& o) noexcept
    : device_(o.device_), stream_(std::exchange(o.stream_, nullptr)), owned_(std::exchange(o.owned_, false)) {}

Stream& Stream::operator=(Stream&& o) noexcept {
    if (this != &o) {
        this->~Stream();
        device_ = o.device_;
        stream_ = std::exchange(o.stream_, nullptr);
        owned_ = std::exchange(o.owned_, false);
    }
    return *this;
}

void Stream::synchronize() const {
    context_of(device_, "Stream::synchronize").synchronize_stream(stream_);
    run_deferred_checks(device_);
}

bool Stream::done() const {
    CudaContext& ctx = context_of(device_, "Stream::done");
    CUresult r = cuda_driver().cuStreamQuery(stream_);
    if (r == CUDA_ERROR_NOT_READY) return false;
    ctx.check(r, "cuStreamQuery");
    return true;
}

Event Stream::record() const {
    Event e(device_);
    e.record(*this);
    return e;
}

void Stream::wait(const Event& e) const {
    CudaContext& ctx = context_of(device_, "Stream::wait");
    ctx.check(cuda_driver().cuStreamWaitEvent(stream_, e.handle(), 0), "cuStreamWaitEvent");
}

// ---- Event ----------------------------------------------------------------------------------

Event::Event(const Device& device, bool timing) : device_(device) {
    CudaContext& ctx = context_of(device, "an Event");
    ctx.check(cuda_driver().cuEventCreate(&event_, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING), "cuEventCreate");
}

Event::~Event() {
    if (event_ && context_for_release(device_)) cuda_driver().cuEventDestroy(event_);
}

Event::Event(Event&& o) noexcept : device_(o.device_), event_(std::exchange(o.event_, nullptr)) {}

Event& Event::operator=(Event&& o) noexcept {
    if (this != &o) {
        this->~Event();
        device_ = o.device_;
        event_ = std::exchange(o.event_, nullptr);
    }
    return *this;
}

void Event::record(const Stream& s) {
    if (s.device() != device_)
        throw RuntimeError("Event::record: the event is on " + device_.str() + ", the stream on " + s.device().str());
    CudaContext& ctx = context_of(device_, "Event::record");
    ctx.check(cuda_driver().cuEventRecord(event_, s.handle()), "cuEventRecord");
}

void Event::synchronize() const {
    CudaContext& ctx = context_of(device_, "Event::synchronize");
    ctx.check(cuda_driver().cuEventSynchronize(event_), "cuEventSynchronize");
    run_deferred_checks(device_);
}

bool Event::done() const {
    CudaContext& ctx = context_of(device_, "Event::done");
    CUresult r = cuda_driver().cuEventQuery(event_);
    if (r == CUDA_ERROR_NOT_READY) return false;
    ctx.check(r, "cuEventQuery");
    return true;
}

float Event::elapsed_ms(const Event& end) const {
    CudaContext& ctx = context_of(device_, "Event::elapsed_ms");
    float ms = 0.0f;
    ctx.check(cuda_driver().cuEventElapsedTime(&ms, event_, end.event_), "cuEventElapsedTime");
    return ms;
}

// ---- ScopedStream ---------------------------------------------------------------------------

ScopedStream::ScopedStream(const Stream& s) : ordinal_(s.device().ordinal) {
    previous_ = context_of(s.device(), "ScopedStream").set_current_stream(s.handle());
}

ScopedStream::~ScopedStream() { CudaContext::get(ordinal_).set_current_stream(previous_); }

// ---- Graph ----------------------------------------------------------------------------------

Graph::~Graph() {
    if (!graph_ && !exec_) return;
    if (!context_for_release(device_)) return;
    if (exec_) cuda_driver().cuGraphExecDestroy(exec_);
    if (graph_) cuda_driver().cuGraphDestroy(graph_);
}

Graph::Graph(Graph&& o) noexcept
    : device_(o.device_),
      graph_(std::exchange(o.graph_, nullptr)),
      exec_(std::exchange(o.exec_, nullptr)),
      nodes_(std::exchange(o.nodes_, 0)),
      keep_(std::move(o.keep_)) {}

Graph& Graph::operator=(Graph&& o) noexcept {
    if (this != &o) {
        this->~Graph();
        device_ = o.device_;
        graph_ = std::exchange(o.graph_, nullptr);
        exec_ = std::exchange(o.exec_, nullptr);
        nodes_ = std::exchange(o.nodes_, 0);
        keep_ = std::move(o.keep_);
    }
    return *this;
}

size_t Graph::node_count() const {
    if (!graph_) return 0;
    CudaContext& ctx = context_of(device_, "Graph::node_count");
    size_t n = 0;
    ctx.check(cuda_driver().cuGraphGetNodes(graph_, nullptr, &n), "cuGraphGetNodes");
    return n;
}

void Graph::launch() const { launch(Stream::current(device_)); }

void Graph::launch(const Stream& s) const {
    if (!exec_) throw RuntimeError("launch of an empty Graph (it was moved from, or never captured)");
    CudaContext& ctx = context_of(device_, "Graph::launch");
    static const auto label = std::make_shared<const KernelLabel>(KernelLabel{"<graph replay>", ""});
    LaunchRecord rec;
    rec.kernel = label;
    rec.shape[0] = static_cast<long long>(nodes_);
    ctx.log().record(rec);
    ctx.check(cuda_driver().cuGraphLaunch(exec_, s.handle()), "cuGraphLaunch");
    keep_.mark_pending();
    if (ctx.sync_every_launch() && !ctx.capturing(s.handle())) ctx.synchronize_stream(s.handle());
}

void begin_capture(const Stream& s) {
    CudaContext& ctx = context_of(s.device(), "begin_capture");
    if (ctx.capturing(s.handle())) throw RuntimeError("begin_capture: a capture is already under way on this stream");
    ctx.check(cuda_driver().cuStreamBeginCapture(s.handle(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    tls_captures.push_back({s.device().ordinal, s.handle(), ctx.set_current_stream(s.handle())});
    open_capture_frame(s.device());
}

Graph end_capture() {
    if (tls_captures.empty()) throw RuntimeError("end_capture: this thread has no capture under way (call begin_capture first)");
    const Capture& c = tls_captures.back();
    return end_capture(Stream::borrow(Device{DeviceKind::Cuda, c.ordinal, {}}, c.stream));
}

Graph end_capture(const Stream& s) {
    CudaContext& ctx = context_of(s.device(), "end_capture");
    CUstream previous = nullptr;
    bool found = false;
    for (size_t i = tls_captures.size(); i-- > 0;) {
        if (tls_captures[i].stream == s.handle() && tls_captures[i].ordinal == s.device().ordinal) {
            previous = tls_captures[i].previous;
            tls_captures.erase(tls_captures.begin() + static_cast<long>(i));
            found = true;
            break;
        }
    }
    if (!found) throw RuntimeError("end_capture: no capture begun by this thread is under way on this stream");
    ctx.set_current_stream(previous);
    Graph g;
    g.device_ = s.device();
    g.keep_ = close_capture_frame(s.device());
    CUresult r = cuda_driver().cuStreamEndCapture(s.handle(), &g.graph_);
    free_after_capture(s.device().ordinal);  // memory freed during the capture that it did not allocate
    if (r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
        throw RuntimeError(
            "end_capture: the capture was invalidated by an operation that cannot be recorded (a copy to or "
            "from host memory, a synchronisation, or a debug-mode launch); see stream.h");
    ctx.check(r, "cuStreamEndCapture");
    ctx.check(cuda_driver().cuGraphInstantiate(&g.exec_, g.graph_, 0), "cuGraphInstantiate");
    g.nodes_ = g.node_count();
    return g;
}

// ---- synchronize ----------------------------------------------------------------------------

void synchronize(const Device& device) {
    context_of(device, "synchronize").synchronize();
    run_deferred_checks(device);
}

}  // namespace weft::runtime
