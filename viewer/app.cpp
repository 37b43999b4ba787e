// viewer/app.cpp: the ImGui panels and the event loop of run_app (app.h).
#define GL_GLEXT_PROTOTYPES 1
#include "viewer/app.h"

#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "runtime/kernel_timing.h"
#include "runtime/sim/sim_backend.h"
#include "viewer/frame_profile.h"
#include "viewer/frame_writer.h"
#include "viewer/image.h"
#include "viewer/picking.h"
#include "viewer/playback.h"
#include "viewer/renderer.h"
#include "viewer/window.h"

namespace weft::viewer {

namespace {

using Clock = std::chrono::steady_clock;

// What a job hands back to the UI thread.
struct JobResult {
    bool stepped = false;
    int frame_index = 0;  // the session's frame count when the job ended
    FrameData frame;
    std::vector<Eigen::Vector3f> velocity;
    FrameProfile profile;
    bool profiled = false;
    std::string error;
    double seconds = 0;
    int steps = 0;
    int frames = 0;         // frames the job stepped (a run-ahead job publishes several at a time)
    bool has_frame = true;  // `frame` is a snapshot to draw
};

// One job at a time on a worker thread: a frame, a device switch or a reset.
class Worker {
public:
    ~Worker() { join(); }
    // Cancels the job running (at its next step) and waits for it.
    void join() {
        cancel.store(true);
        if (thread_.joinable()) thread_.join();
    }
    bool busy() const { return running_.load(); }
    template <class F>
    void start(F job) {
        if (thread_.joinable()) thread_.join();
        cancel.store(false);
        done_steps.store(0);
        total_steps.store(0);
        running_.store(true);
        thread_ = std::thread([this, job] {
            JobResult r = job();
            std::lock_guard<std::mutex> lock(mutex_);
            merge(std::move(r));
            running_.store(false);
        });
    }
    // A result while the job goes on (run ahead): it replaces one not yet taken, whose frames and
    // time it adds to its own.
    void publish(JobResult r) {
        std::lock_guard<std::mutex> lock(mutex_);
        merge(std::move(r));
    }
    bool take(JobResult& out) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!has_result_) return false;
        out = std::move(result_);
        has_result_ = false;
        return true;
    }
    std::atomic<bool> cancel{false};
    std::atomic<int> done_steps{0}, total_steps{0};

private:
    void merge(JobResult r) {
        // A run-ahead loop that ends right after publishing returns no frame: the untaken result
        // stands (replacing it would drop its frames from the count, and the window would start
        // another loop for frames already stepped).
        if (has_result_ && !r.has_frame && r.error.empty()) return;
        if (has_result_ && result_.stepped) {
            r.frames += result_.frames;
            r.steps += result_.steps;
            r.seconds += result_.seconds;
            r.stepped = true;
            if (r.error.empty()) r.error = std::move(result_.error);
        }
        result_ = std::move(r);
        has_result_ = true;
    }
    std::thread thread_;
    std::atomic<bool> running_{false};
    std::mutex mutex_;
    JobResult result_;
    bool has_result_ = false;
};

struct Ui {
    Ui(Session& s, const AppOptions& o) : session(s), options(o) {}
    Session& session;
    AppOptions options;
    Playback playback;
    Worker worker;
    OrbitCamera camera;
    FrameData frame;  // what is drawn: the state after frame `frame_index`
    int frame_index = 0;
    std::vector<Eigen::Vector3f> velocity;
    FrameProfile profile;  // the last frame's, shown
    bool have_profile = false;
    FrameProfile predicted, measured;         // the last of each kind, for the side-by-side column
    std::atomic<bool> measure_kernels{true};  // time each launch on cpu and cuda (cuda: frames without graphs)
    std::atomic<bool> want_velocity{false};   // a particle is picked: jobs read the velocities back
    std::atomic<bool> want_frame{true};       // the UI took the last published frame (run ahead)
    bool running_ahead = false;               // the worker's job is a run-ahead loop
    std::string pending_switch;               // a device chosen while running ahead
    int selected_kernel = -1;
    std::vector<DeviceChoice> devices;
    std::string device;           // the session's device (read while no job runs)
    std::string previous_device;  // the one before the last switch
    std::string error;            // the last job's failure
    std::string notice;           // screenshots written, ...
    Pick pick;
    bool show_help = false;
    int color_choice = 0;  // speed, force, none
    int screenshots = 0;
    int frames_left = -1;
    int exit_code = 0;
    bool window_png_due = false;  // write the window after this UI frame (AppOptions::window_png_dir)
    std::vector<unsigned> typed;  // characters typed while ImGui did not want the keyboard

    // `timing`: the frame's measured launches (cpu, cuda), or null for a simulated frame's reports
    // since `mark` (or no profile when `profile_it` is false).
    JobResult collect(bool stepped, uint64_t mark, bool profile_it, const runtime::KernelTiming* timing = nullptr) {
        JobResult r;
        r.stepped = stepped;
        r.frame_index = session.frame();
        r.frame = session.snapshot(options.colors, true);
        if (want_velocity.load()) {
            r.velocity.resize(size_t(session.model().particle_count));
            session.state().particle_qd.copy_to_host(r.velocity.data(), r.velocity.size() * sizeof(Eigen::Vector3f));
        }
        if (profile_it) {
            r.profile = timing ? measured_profile(timing->results(), session.device().str()) : frame_profile_since(mark);
            r.profiled = true;
            if (r.profile.device.empty()) r.profile.device = session.device().str();
        }
        return r;
    }

    void start_frame() {
        worker.start([this] {
            auto t0 = Clock::now();
            bool sim = session.device().kind == runtime::DeviceKind::Sim;
            bool measure = !sim && measure_kernels.load();
            uint64_t mark = runtime::sim_report_mark();
            try {
                // On the simulator a frame takes seconds: step by step, with progress and cancel. Elsewhere
                // the frame runs whole: as one CUDA graph on cuda devices, unless its kernels are timed.
                std::optional<runtime::KernelTiming> timing;
                if (sim) {
                    session.step_frame([this](int done, int total) { worker.done_steps = done, worker.total_steps = total; },
                                       &worker.cancel);
                } else {
                    session.set_graphs(!measure);
                    if (measure) timing.emplace();
                    session.step_frame();
                }
                JobResult r = collect(true, mark, sim || measure, timing ? &*timing : nullptr);
                r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
                r.steps = session.substeps();
                r.frames = 1;
                return r;
            } catch (const FrameCancelled&) {
                JobResult r = collect(false, mark, false);
                r.error = "frame cancelled; the scene is where it was";
                return r;
            } catch (const std::exception& e) {
                std::string message = e.what();
                // The scene stays runnable: back to the device it ran on before this one.
                if (!previous_device.empty() && previous_device != session.device().str()) {
                    try {
                        session.switch_device(previous_device);
                        message += "\n(back on " + previous_device + ")";
                    } catch (const std::exception&) {}
                }
                JobResult r = collect(false, mark, false);
                r.error = message;
                return r;
            }
        });
    }

    // Run ahead: frames back to back on the worker (whole frames, as CUDA graphs on cuda) until
    // cancelled or `limit` frames (< 0: no limit); after a frame, when the window has taken the
    // last one, a snapshot of vertex arrays is published. The window draws at its own rate and the
    // simulation is not held to it: what the viewer costs a frame is a snapshot's device copies
    // every few frames and the GPU time of the drawings (bench/viewer/viewer_bench.cpp's run-ahead
    // rows measure it).
    void start_run_ahead(int limit) {
        running_ahead = true;
        want_frame = true;
        worker.start([this, limit] {
            session.set_graphs(true);
            JobResult pending;
            int done = 0;
            auto t0 = Clock::now();
            // At most two frames queued ahead of the device (cuda runs frames asynchronously): a
            // snapshot is drawn a frame or two after it was taken, not after a long queue.
            std::deque<std::shared_ptr<runtime::QueueMark>> queued;
            runtime::DeviceBackend& device = runtime::backend(session.device());
            try {
                while (!worker.cancel.load() && (limit < 0 || done < limit)) {
                    if (queued.size() >= 2) {
                        if (queued.front()) queued.front()->wait();
                        queued.pop_front();
                    }
                    session.step_frame();
                    queued.push_back(device.mark_queue());
                    ++done;
                    ++pending.frames;
                    pending.steps += session.substeps();
                    if (want_frame.exchange(false)) {
                        JobResult r = collect(true, 0, false);
                        auto now = Clock::now();
                        r.frames = pending.frames, r.steps = pending.steps;
                        r.seconds = std::chrono::duration<double>(now - t0).count();
                        t0 = now;
                        pending = JobResult();
                        worker.publish(std::move(r));
                    }
                }
                if (pending.frames == 0) {
                    JobResult none;
                    none.has_frame = false;
                    return none;
                }
                JobResult r = collect(true, 0, false);
                r.frames = pending.frames, r.steps = pending.steps;
                r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
                return r;
            } catch (const std::exception& e) {
                JobResult r = collect(false, 0, false);
                r.error = e.what();
                return r;
            }
        });
    }

    void start_switch(const std::string& to) {
        std::string from = device;
        worker.start([this, to, from] {
            try {
                session.switch_device(to);
                previous_device = from;
                return collect(false, 0, false);
            } catch (const std::exception& e) {
                JobResult r = collect(false, 0, false);
                r.error = "cannot switch to " + to + ": " + e.what() + "\n(still on " + from + ")";
                return r;
            }
        });
    }

    void start_reset() {
        worker.start([this] {
            session.reset();
            return collect(false, 0, false);
        });
    }

    void take_results() {
        JobResult r;
        if (!worker.take(r)) return;
        want_frame = true;
        if (!worker.busy()) running_ahead = false;
        if (!r.has_frame) return;  // a run-ahead loop that stopped right after publishing
        frame = std::move(r.frame);
        frame_index = r.frame_index;
        velocity = std::move(r.velocity);
        device = session.device().str();
        if (!r.error.empty()) {
            error = r.error;
            playback.pause();
            if (frames_left >= 0) exit_code = 1, frames_left = 0;
        } else if (r.stepped) {
            error.clear();
            for (int k = 0; k < r.frames; ++k) playback.frame_done(r.steps / std::max(r.frames, 1), r.seconds / r.frames);
            if (frames_left > 0) frames_left = std::max(frames_left - r.frames, 0);
            window_png_due = !options.window_png_dir.empty();
        }
        if (r.profiled) {
            (r.profile.measured ? measured : predicted) = r.profile;
            profile = std::move(r.profile);
            if (!have_profile || selected_kernel >= int(profile.kernels.size()))
                selected_kernel = profile.kernels.empty() ? -1 : 0;
            have_profile = true;
        } else if (r.stepped) {
            have_profile = false;
        }
        if (pick.group >= 0 &&
            (size_t(pick.group) >= frame.particles.size() || size_t(pick.particle) >= frame.particles[size_t(pick.group)].size()))
            pick = Pick();
    }

    void screenshot(Renderer& renderer, int width, int height) {
        std::filesystem::create_directories(options.screenshot_dir);
        std::string path;
        do {
            char name[32];
            snprintf(name, sizeof name, "weft_%05d.png", screenshots++);
            path = (std::filesystem::path(options.screenshot_dir) / name).string();
        } while (std::filesystem::exists(path));
        try {
            write_png(path, renderer.render_image(frame, camera, width, height));
            notice = "wrote " + path;
        } catch (const std::exception& e) { notice = e.what(); }
    }

    void panels(Renderer& renderer, int width, int height) {
        const bool busy = worker.busy();
        ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
        ImGui::SetNextWindowSize(ImVec2(360, std::min(float(height) - 20.0f, 560.0f)), ImGuiCond_FirstUseEver);
        ImGui::Begin("weft view");
        ImGui::Text("%s  (%s)", session.scene().name.c_str(), session.scene().solver.c_str());

        if (ImGui::CollapsingHeader("Playback", ImGuiTreeNodeFlags_DefaultOpen)) {
            if (ImGui::Button(playback.playing() ? "pause" : "play")) playback.toggle();
            ImGui::SameLine();
            if (ImGui::Button("step")) playback.step();
            ImGui::SameLine();
            if (ImGui::Button("reset")) playback.reset();
            ImGui::BeginDisabled(playback.run_ahead);
            ImGui::SliderFloat("speed", &playback.speed, 0.05f, 4.0f, "%.2fx", ImGuiSliderFlags_Logarithmic);
            ImGui::EndDisabled();
            ImGui::Checkbox("run ahead", &playback.run_ahead);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(
                    "frames back to back as fast as the device goes; the window shows the latest\n"
                    "(not on sim: a simulated frame is profiled one at a time)");
            ImGui::Text("frame %d   t = %.3f s   %.0f steps/s", frame_index, frame_index / double(session.scene().fps),
                        playback.steps_per_second());
            const char* colors[] = {"speed", "force", "none"};
            if (ImGui::Combo("colour by", &color_choice, colors, 3)) options.colors.quantity = colors[color_choice];
            const std::vector<float>& drawn_hi = renderer.last_value_ranges();
            for (size_t k = 0; k < frame.particles.size(); ++k) {
                const ParticleData& p = frame.particles[k];
                if (options.colors.quantity != "none")
                    ImGui::Text("%s: %s from %.3g (dark blue) to %.3g (yellow)", p.name.c_str(), options.colors.quantity.c_str(),
                                double(p.value_lo), double(k < drawn_hi.size() ? drawn_hi[k] : p.value_hi));
            }
        }

        if (ImGui::CollapsingHeader("Device", ImGuiTreeNodeFlags_DefaultOpen)) {
            if (ImGui::BeginCombo("device", device.c_str())) {
                for (const DeviceChoice& c : devices) {
                    ImGui::BeginDisabled(!c.available || (busy && !running_ahead));
                    if (ImGui::Selectable(c.device.c_str(), c.device == device) && c.device != device) {
                        if (running_ahead) {  // after the loop stops, at its next frame
                            pending_switch = c.device;
                            worker.cancel = true;
                        } else {
                            start_switch(c.device);
                        }
                    }
                    ImGui::EndDisabled();
                    if (!c.available && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                        ImGui::SetTooltip("%s", c.reason.c_str());
                }
                ImGui::EndCombo();
            }
            if (busy) {
                int total = worker.total_steps.load(), done = worker.done_steps.load();
                char overlay[64];
                snprintf(overlay, sizeof overlay, total ? "step %d / %d" : "working...", done, total);
                ImGui::ProgressBar(total ? float(done) / float(total) : 0.0f, ImVec2(-80, 0), overlay);
                ImGui::SameLine();
                if (ImGui::Button("cancel")) worker.cancel = true;
            }
            if (!error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.3f, 1.0f), "%s", error.c_str());
            if (!notice.empty()) ImGui::TextWrapped("%s", notice.c_str());
        }

        if (ImGui::CollapsingHeader("Parameters")) {
            const bool busy = worker.busy();  // a switch may have started above
            ImGui::BeginDisabled(busy);
            for (const ParameterSpec& p : Session::parameters()) {
                float v = busy ? 0.0f : session.parameter(p.name);
                bool log = p.hi >= 1000.0f && p.lo >= 0.0f;
                bool changed = p.name == "substeps"
                                   ? ImGui::SliderFloat(p.label.c_str(), &v, p.lo, 64.0f, "%.0f")
                                   : ImGui::DragFloat(p.label.c_str(), &v, log ? std::max(std::abs(v), 1.0f) * 0.01f : 0.05f,
                                                      p.lo, p.hi, "%.4g", log ? ImGuiSliderFlags_Logarithmic : 0);
                if (changed && !busy) {
                    try {
                        session.set_parameter(p.name, std::clamp(v, p.lo, p.hi));
                    } catch (const std::exception& e) { error = e.what(); }
                }
            }
            ImGui::EndDisabled();
        }

        if (ImGui::CollapsingHeader("Picker", ImGuiTreeNodeFlags_DefaultOpen)) {
            ImGui::TextWrapped("%s", pick.group >= 0 ? describe_pick(pick, frame, velocity).c_str() : "click a particle");
        }

        ImGui::End();

        const float profile_width = std::min(560.0f, 0.45f * float(width));
        ImGui::SetNextWindowPos(ImVec2(float(width) - profile_width - 10.0f, 10.0f), ImGuiCond_FirstUseEver);
        ImGui::SetNextWindowSize(ImVec2(profile_width, std::min(float(height) - 20.0f, 480.0f)), ImGuiCond_FirstUseEver);
        ImGui::Begin("Frame profile");
        profile_panel();
        ImGui::End();

        if (show_help) {
            ImGui::SetNextWindowPos(ImVec2(float(width) * 0.5f, float(height) * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
            ImGui::Begin("help", &show_help, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
            ImGui::TextUnformatted(help_text());
            ImGui::End();
        }
        (void)renderer;
    }

    void profile_panel() {
        bool measure = measure_kernels.load();
        if (device.rfind("sim:", 0) != 0 && ImGui::Checkbox("time each kernel", &measure)) { measure_kernels.store(measure); }
        if (device.rfind("sim:", 0) != 0 && ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "cpu: the wall clock around each launch; cuda: CUDA events around each launch, with\n"
                "frames launched kernel by kernel instead of as one CUDA graph");
        if (!have_profile) {
            ImGui::TextWrapped(device.rfind("sim:", 0) == 0 ? "run a frame to see where its simulated cycles went"
                               : measure                    ? "run a frame to see its kernels' measured times"
                                         : "kernel timing is off (on cuda, frames run as one CUDA graph again)");
            return;
        }
        // The other kind's last profile, for a column beside this one: predicted beside measured.
        const FrameProfile& other = profile.measured ? predicted : measured;
        const bool beside = !other.kernels.empty();
        if (profile.measured)
            ImGui::Text("measured on %s (%s): %llu launches, %.1f us of kernels", profile.device.c_str(),
                        profile.device == "cpu" ? "wall clock" : "CUDA events", (unsigned long long)profile.launches,
                        profile.time_us);
        else
            ImGui::Text("predicted by %s: %llu launches, %.1f us of kernels", profile.device.c_str(),
                        (unsigned long long)profile.launches, profile.time_us);
        if (ImGui::BeginTable("kernels", beside ? 5 : 4, ImGuiTableFlags_RowBg)) {
            ImGui::TableSetupColumn("kernel", ImGuiTableColumnFlags_WidthStretch);
            ImGui::TableSetupColumn("launches", ImGuiTableColumnFlags_WidthFixed, 64.0f);
            ImGui::TableSetupColumn(profile.measured ? "us" : "cycles", ImGuiTableColumnFlags_WidthFixed, 80.0f);
            std::string other_label = other.device + (other.measured ? " us" : " us (pred.)");
            if (beside) ImGui::TableSetupColumn(other_label.c_str(), ImGuiTableColumnFlags_WidthFixed, 110.0f);
            ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthFixed, 90.0f);
            ImGui::TableHeadersRow();
            for (size_t k = 0; k < profile.kernels.size(); ++k) {
                const ProfileKernel& kernel = profile.kernels[k];
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                if (ImGui::Selectable(kernel.name.c_str(), selected_kernel == int(k), ImGuiSelectableFlags_SpanAllColumns))
                    selected_kernel = selected_kernel == int(k) ? -1 : int(k);
                ImGui::TableNextColumn();
                ImGui::Text("%llu", (unsigned long long)kernel.launches);
                ImGui::TableNextColumn();
                if (profile.measured)
                    ImGui::Text("%.1f", kernel.time_us);
                else
                    ImGui::Text("%llu", (unsigned long long)kernel.cycles);
                if (beside) {
                    ImGui::TableNextColumn();
                    double t = kernel_time_us(other, kernel.name);
                    if (t >= 0)
                        ImGui::Text("%.1f", t);
                    else
                        ImGui::TextDisabled("-");
                }
                ImGui::TableNextColumn();
                char pct[16];
                snprintf(pct, sizeof pct, "%.1f%%", 100.0 * kernel.share);
                ImGui::ProgressBar(float(kernel.share), ImVec2(-1, 0), pct);
            }
            ImGui::EndTable();
        }
        if (profile.measured && selected_kernel >= 0) {
            ImGui::Separator();
            ImGui::TextWrapped(
                "per-line times are predicted by the simulator: switch to a sim:ARCH device to see "
                "%s's lines",
                profile.kernels[size_t(selected_kernel)].name.c_str());
            return;
        }
        if (selected_kernel < 0) return;
        const ProfileKernel& kernel = profile.kernels[size_t(selected_kernel)];
        ImGui::Separator();
        ImGui::Text("%s: lines by share of its cycles", kernel.name.c_str());
        for (const ProfileLine& l : kernel.lines) {
            char pct[16];
            snprintf(pct, sizeof pct, "%.1f%%", 100.0 * l.share);
            ImGui::PushStyleColor(ImGuiCol_PlotHistogram,
                                  ImVec4(0.4f + 0.6f * float(l.share), 0.5f * (1.0f - float(l.share)), 0.1f, 1.0f));
            ImGui::ProgressBar(float(l.share), ImVec2(70, 0), pct);
            ImGui::PopStyleColor();
            ImGui::SameLine();
            std::string file = l.file.substr(l.file.rfind('/') == std::string::npos ? 0 : l.file.rfind('/') + 1);
            size_t indent = l.text.find_first_not_of(" \t");
            ImGui::Text("%s:%d  %s", file.c_str(), l.line, indent == std::string::npos ? "" : l.text.c_str() + indent);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("top stall: %s\nshared wavefronts: %llu (%llu excess)\nglobal sectors/request: %.2f",
                                  l.top_stall.c_str(), (unsigned long long)l.shared_wavefronts,
                                  (unsigned long long)l.shared_excess_wavefronts, l.sectors_per_request);
        }
    }
};

void on_char(GLFWwindow* w, unsigned int c) {
    auto* ui = static_cast<Ui*>(glfwGetWindowUserPointer(w));
    if (ui && !ImGui::GetIO().WantCaptureKeyboard) ui->typed.push_back(c);
}

// The back buffer as drawn (scene and panels), row 0 at the top.
Image read_window(int width, int height) {
    Image image;
    image.width = width;
    image.height = height;
    image.rgba.resize(size_t(width) * size_t(height) * 4);
    std::vector<uint8_t> rows(image.rgba.size());
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
    size_t row = size_t(width) * 4;
    for (int y = 0; y < height; ++y) std::memcpy(&image.rgba[row * size_t(y)], &rows[row * size_t(height - 1 - y)], row);
    for (size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = 255;
    return image;
}

}  // namespace

const char* help_text() {
    return "space   play / pause\n"
           ".       one frame\n"
           "r       reset to frame 0\n"
           "s       screenshot (PNG)\n"
           "f       frame the scene\n"
           "h       this help\n"
           "mouse   left drag: orbit, right or shift + left drag: pan, wheel: zoom, left click: pick";
}

int run_app(Session& session, const AppOptions& options) {
    Window window("weft view: " + session.scene().name, options.width, options.height, true);
    Ui ui(session, options);
    glfwSetWindowUserPointer(window.handle(), &ui);
    glfwSetCharCallback(window.handle(), on_char);  // before ImGui's, which chains to it

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window.handle(), true);
    ImGui_ImplOpenGL3_Init("#version 330");
    int code = 0;
    {
        Renderer renderer;
        ui.devices = device_choices();
        ui.device = session.device().str();
        ui.frame = session.snapshot(options.colors);
        ui.frames_left = options.frames;
        ui.playback.run_ahead = options.run_ahead;
        fit_camera(ui.camera, ui.frame);
        if (options.frames >= 0) ui.playback.play();
        const auto start = Clock::now();
        ImVec2 press{0, 0};
        long busy_ui_frames = 0;  // UI frames drawn while a job ran, and their time
        double busy_seconds = 0;
        auto last = Clock::now();
        while (!window.should_close()) {
            auto now_tp = Clock::now();
            if (ui.worker.busy()) {
                ++busy_ui_frames;
                busy_seconds += std::chrono::duration<double>(now_tp - last).count();
            }
            last = now_tp;
            glfwPollEvents();
            ui.take_results();
            if (ui.frames_left == 0 && !ui.worker.busy() && !ui.window_png_due) break;
            int width = 0, height = 0;
            window.framebuffer_size(width, height);
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            ImGui::NewFrame();
            ImGuiIO& io = ImGui::GetIO();

            // Keys and mouse, unless a panel has them.
            for (unsigned c : ui.typed) {
                if (c == ' ') ui.playback.toggle();
                if (c == '.') ui.playback.step();
                if (c == 'r') ui.playback.reset();
                if (c == 's') ui.screenshot(renderer, width, height);
                if (c == 'h') ui.show_help = !ui.show_help;
                if (c == 'f') fit_camera(ui.camera, ui.frame);
            }
            ui.typed.clear();
            if (!io.WantCaptureMouse) {
                float sx = io.DisplayFramebufferScale.x, sy = io.DisplayFramebufferScale.y;
                if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) press = io.MousePos;
                bool pan =
                    ImGui::IsMouseDown(ImGuiMouseButton_Right) || (ImGui::IsMouseDown(ImGuiMouseButton_Left) && io.KeyShift);
                if (pan)
                    ui.camera.pan(io.MouseDelta.x * sx, io.MouseDelta.y * sy, float(height));
                else if (ImGui::IsMouseDown(ImGuiMouseButton_Left))
                    ui.camera.orbit(io.MouseDelta.x, io.MouseDelta.y);
                if (io.MouseWheel != 0.0f) ui.camera.zoom(io.MouseWheel);
                if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) && std::abs(io.MousePos.x - press.x) < 3 &&
                    std::abs(io.MousePos.y - press.y) < 3 && !io.KeyShift)
                    ui.pick = pick_particle(ui.camera.ray(io.MousePos.x * sx, io.MousePos.y * sy, width, height), ui.frame);
            }

            // The simulation: one job at a time. Running ahead (not on the simulator, whose frames are
            // profiled one at a time), the job loops until paused, a switch or reset is asked for, or
            // --frames is reached.
            double now = std::chrono::duration<double>(Clock::now() - start).count();
            ui.want_velocity = ui.pick.group >= 0;
            const bool sim = session.device().kind == runtime::DeviceKind::Sim;
            if (!ui.worker.busy()) {
                // A job that ended since the top of this frame left its result: count its frames
                // before deciding to start another (else --frames is overshot by a whole loop).
                ui.take_results();
                if (!ui.pending_switch.empty()) {
                    std::string to = std::move(ui.pending_switch);
                    ui.pending_switch.clear();
                    ui.start_switch(to);
                } else if (ui.playback.take_reset()) {
                    ui.start_reset();
                } else if (ui.frames_left != 0 && ui.playback.playing() && ui.playback.run_ahead && !sim) {
                    ui.start_run_ahead(ui.frames_left);
                } else if (ui.frames_left != 0 && ui.playback.frames_due(now, session.scene().fps) > 0) {
                    ui.start_frame();
                }
            } else if (ui.running_ahead && (!ui.playback.playing() || !ui.playback.run_ahead || ui.frames_left == 0)) {
                ui.worker.cancel = true;
            }

            ui.panels(renderer, width, height);
            ImGui::Render();
            if (width > 0 && height > 0) {
                glBindFramebuffer(GL_FRAMEBUFFER, 0);
                renderer.render(ui.frame, ui.camera, width, height);
            }
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            if (ui.window_png_due && width > 0 && height > 0) {
                ui.window_png_due = false;
                write_png(frame_png_path(options.window_png_dir, ui.frame_index), read_window(width, height));
            }
            window.swap();
        }
        ui.worker.cancel = true;
        code = ui.exit_code;
        if (options.frames >= 0)
            printf("%s: %d frames on %s; the window drew %.0f frames per second while the simulation worked\n",
                   session.scene().name.c_str(), ui.frame_index, ui.device.c_str(),
                   busy_seconds > 0 ? double(busy_ui_frames) / busy_seconds : 0.0);
        if (!ui.error.empty() && options.frames >= 0) fprintf(stderr, "%s\n", ui.error.c_str());
    }
    ui.worker.join();  // before ImGui and the window go
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwSetWindowUserPointer(window.handle(), nullptr);
    return code;
}

}  // namespace weft::viewer
