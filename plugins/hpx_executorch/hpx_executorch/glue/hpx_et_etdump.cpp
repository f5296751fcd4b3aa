/*
 * ETDump from the device: ExecuTorch's own ETDumpGen as the tracer of a third copy of the
 * method, loaded and run once after every counted pass (from hpx_engine_finish()), never timed.
 * Its flatbuffer goes to the bundle as etdump.etdp. With the layer check every tensor the
 * kernels log (each instruction's output, then the program outputs) leaves through WireSink, a
 * DataSinkBase that sends the bytes as FILE chunks of etdump.debug.bin the moment they are
 * logged, so no RAM debug buffer is needed; the offsets it returns are the file's, which is
 * what Inspector's debug_buffer_path reads. Everything here lives in .noinit, never zeroed at
 * start-up (the buffer and the method arena, in hpx_et_model.c, there too, or in an Apollo
 * board's SRAM section, which start-up zeroes; placeholders when the pass is off), and the pass
 * is in every build: with it or without, the firmware is the same code at the same addresses.
 */
#include "hpx_et_etdump.h"

#include <errno.h>

#include <new>

#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/runtime/executor/memory_manager.h>

#include "hpx_et_glue.h"

extern "C" {
#include "hpx_engine.h"
}

namespace rt = executorch::runtime;
using executorch::etdump::ETDumpGen;
using executorch::etdump::ETDumpResult;

#define HPX_ET_NOINIT __attribute__((section(".noinit")))

extern "C" {
/* flatcc's heap path (aligned_alloc, for an ETDumpGen without a buffer) is linked but never
 * taken here, and newlib-nano's aligned_alloc needs posix_memalign: the firmware has no heap. */
int posix_memalign(void** out, size_t, size_t) {
  *out = nullptr;
  return ENOMEM;
}
}

namespace {

const char kEtdumpFile[] = "etdump.etdp";
const char kDebugFile[] = "etdump.debug.bin";
/* The pass runs while g_running holds this (never zeroed: see above). */
constexpr uint32_t kRunning = 0x45544450u;

class WireSink final : public executorch::etdump::DataSinkBase {
 public:
  rt::Result<size_t> write(const void* ptr, size_t length) override {
    const size_t offset = used_;
    hpx_report_file(kDebugFile, offset, static_cast<const uint8_t*>(ptr), length);
    used_ += length;
    return offset;
  }
  size_t get_used_bytes() const override { return used_; }

 private:
  size_t used_ = 0;
};

alignas(rt::MemoryAllocator) HPX_ET_NOINIT uint8_t g_alloc_buf[sizeof(rt::MemoryAllocator)];
alignas(rt::MemoryManager) HPX_ET_NOINIT uint8_t g_manager_buf[sizeof(rt::MemoryManager)];
alignas(rt::Method) HPX_ET_NOINIT uint8_t g_method_buf[sizeof(rt::Method)];
alignas(ETDumpGen) HPX_ET_NOINIT uint8_t g_gen_buf[sizeof(ETDumpGen)];
alignas(WireSink) HPX_ET_NOINIT uint8_t g_sink_buf[sizeof(WireSink)];
HPX_ET_NOINIT uint32_t g_running;
HPX_ET_NOINIT WireSink* g_sink; /* set once the method runs */

bool logs_tensors() { return hpx_et_etdump_mode == 2; }

/* ETDumpGen places its flatcc builder in the buffer and aborts unless it exceeds 128 KiB plus
 * the builder (engine.config.etdump_buffer_size is checked for that): a quarter, at most
 * 128 KiB, is the builder's working memory, the rest the dump. */
ETDumpGen* make_etdump_gen() {
  auto* gen = new (g_gen_buf)
      ETDumpGen(rt::Span<uint8_t>(hpx_et_etdump_buffer, hpx_et_etdump_buffer_size));
  /* Method and the kernel wrappers read the level from the tracer they were loaded with. */
  gen->set_event_tracer_debug_level(logs_tensors()
                                        ? rt::EventTracerDebugLogLevel::kIntermediateOutputs
                                        : rt::EventTracerDebugLogLevel::kNoLogging);
  return gen;
}

/* The ETDump, then the end of the debug data (its chunks went out while the method ran). */
void send_files(ETDumpGen* gen, const WireSink* sink) {
  const ETDumpResult result = gen->get_etdump_data();
  hpx_report_file(kEtdumpFile, 0, static_cast<const uint8_t*>(result.buf), result.size);
  hpx_report_file_end(kEtdumpFile, result.size);
  if (logs_tensors()) {
    hpx_report_file_end(kDebugFile, sink->get_used_bytes());
  }
  hpx_report_metric("etdump_bytes", result.size);
  hpx_report_metric("etdump_debug_bytes", sink->get_used_bytes());
}

int run(const HpxEtProgram* program, ETDumpGen* gen) {
  auto* method_alloc = new (g_alloc_buf) rt::MemoryAllocator(
      static_cast<uint32_t>(hpx_et_etdump_method_arena_size), hpx_et_etdump_method_arena);
  auto* manager = new (g_manager_buf)
      rt::MemoryManager(method_alloc, program->planned, program->temp);
  auto loaded = program->program->load_method(program->method_name, manager, gen);
  if (!loaded.ok()) {
    return static_cast<int>(loaded.error());
  }
  auto* method = new (g_method_buf) rt::Method(std::move(*loaded));
  const int rc = program->copy_inputs(method);
  if (rc != 0) {
    return rc;
  }
  auto* sink = new (g_sink_buf) WireSink();
  g_sink = sink;
  gen->set_data_sink(sink); /* ETDumpGen's reset() in its constructor cleared any sink */
  const rt::Error error = method->execute();
  send_files(gen, sink);
  return static_cast<int>(error);
}

}  // namespace

extern "C" int hpx_et_etdump_pass(const HpxEtProgram* program) {
  g_running = kRunning;
  g_sink = nullptr;
  const int rc = run(program, make_etdump_gen());
  g_running = 0;
  return rc;
}

/* ETDumpGen aborts (ET_CHECK) when its buffer is full; the runtime is built without log
 * messages, so this line is what the host learns before the trap. The debug data already sent
 * is closed, so the stream stays whole and the host reads the fault. */
extern "C" void hpx_et_etdump_abort(void) {
  if (g_running == kRunning) {
    if (g_sink != nullptr) {
      hpx_report_file_end(kDebugFile, g_sink->get_used_bytes());
    }
    hpx_print("ExecuTorch aborted in the ETDump pass: ETDumpGen's buffer is likely full; raise "
              "engine.config.etdump_buffer_size");
  }
}
