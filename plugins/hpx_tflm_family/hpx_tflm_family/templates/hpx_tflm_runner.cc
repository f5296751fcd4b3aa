/*
 * The MicroInterpreter runner: hpx_engine.h on TFLite Micro.
 *
 * Every operator invocation is one layer: a MicroProfilerInterface turns TFLM's per-operator
 * BeginEvent/EndEvent into hpx_layer_begin/hpx_layer_end with the invocation's position as the
 * layer index. In the whole-inference mode the profiler stays installed (TFLM has no public way
 * to detach it) but returns at once, so only a virtual call per operator lands in the count.
 * Inputs are refilled before every inference (TFLM's planner reuses the input's memory).
 *
 * Built with the layer check (HPX_CHECK_LAYERS), hpx_engine_check() swaps in a second
 * profiler for one uncounted inference: before each operator it stages the operator's
 * non-constant inputs, after it hands the outputs and the staged inputs to hpx_check_layer().
 *
 * The memory pass (hpx_memory.h) gets the arena from the allocator's own records: the
 * interpreter's allocator is made here as MicroAllocator::Create(arena, size) makes it, keeping
 * the buffer allocator whose persistent (tail) and planned (head) bytes it reports; the head,
 * where the planner put every activation and scratch buffer, is watched, so each layer's
 * figure is the persistent part plus the head's high-water up to that layer. What the model
 * needs is more than what the interpreter reports using: while it plans, the greedy planner
 * takes scratch of its own (40 bytes a buffer) that no record keeps. So the pass asks
 * AllocateTensors itself: trial interpreters over the arena's first bytes, bisected to the
 * smallest size, in the arena's alignment, that fits. A trial may need the whole arena (one
 * sized to fit leaves no room beside the real interpreter's tail), so the trials write over the
 * real interpreter, which is then made again as hpx_engine_init made it.
 */
#include <new>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hpx_tflm_glue.h"
#include "tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.h"
#include "tensorflow/lite/micro/memory_helpers.h"
#include "tensorflow/lite/micro/micro_arena_constants.h"
#include "tensorflow/lite/micro/memory_planner/greedy_memory_planner.h"
#include "tensorflow/lite/micro/micro_allocator.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_profiler_interface.h"
#include "tensorflow/lite/micro/micro_resource_variable.h"
#include "tensorflow/lite/schema/schema_generated.h"

extern "C" {
#include "hpx_engine.h"
#include "hpx_platform.h"

// C linkage: the placement check finds the arena by this symbol in the linked ELF.
alignas(16) uint8_t hpx_tflm_arena[HPX_TFLM_ARENA_SIZE] HPX_TFLM_ARENA_SECTION;
}

namespace {

class LayerProfiler : public tflite::MicroProfilerInterface {
 public:
  void Start(bool per_layer) {
    per_layer_ = per_layer;
    next_ = 0;
  }
  uint32_t BeginEvent(const char* tag) override {
    (void)tag;
    if (!per_layer_) {
      return 0;
    }
    const uint32_t index = next_++;
    hpx_layer_begin(index);
    return index;
  }
  void EndEvent(uint32_t handle) override {
    if (per_layer_) {
      hpx_layer_end(handle);
    }
  }

 private:
  bool per_layer_ = false;
  uint32_t next_ = 0;
};

/* MicroInterpreter with its context reachable, for the check profiler (no virtual methods, so
 * Invoke() is the very same code). */
class Interpreter : public tflite::MicroInterpreter {
 public:
  using tflite::MicroInterpreter::MicroInterpreter;
  TfLiteContext& mutable_context() { return const_cast<TfLiteContext&>(context()); }
};

alignas(Interpreter) uint8_t g_interpreter_buf[sizeof(Interpreter)];
HpxOpResolver g_resolver;
LayerProfiler g_profiler;
Interpreter* g_interpreter = nullptr;
tflite::SingleArenaBufferAllocator* g_arena = nullptr;
const tflite::Model* g_model = nullptr;
bool g_quiet = false; /* the memory pass's trials fail on purpose: their complaints are not news */

/* MicroAllocator::Create(arena, size) step by step (same calls, same layout), keeping the
 * buffer allocator (in *buffers) for the memory pass. */
tflite::MicroAllocator* make_allocator(uint8_t* arena, size_t bytes,
                                       tflite::SingleArenaBufferAllocator** buffers) {
  uint8_t* aligned = tflite::AlignPointerUp(arena, tflite::MicroArenaBufferAlignment());
  const size_t size = static_cast<size_t>(arena + bytes - aligned);
  *buffers = tflite::SingleArenaBufferAllocator::Create(aligned, size);
  uint8_t* planner = (*buffers)->AllocatePersistentBuffer(sizeof(tflite::GreedyMemoryPlanner),
                                                           alignof(tflite::GreedyMemoryPlanner));
  return tflite::MicroAllocator::Create(*buffers, new (planner) tflite::GreedyMemoryPlanner());
}

/* An interpreter over `bytes` of the arena, built in `storage`: the firmware's own, or a
 * trial of the memory pass. */
Interpreter* make_interpreter(const tflite::Model* model, uint8_t* storage, size_t bytes,
                              tflite::MicroProfilerInterface* profiler,
                              tflite::SingleArenaBufferAllocator** buffers) {
  tflite::MicroAllocator* allocator = make_allocator(hpx_tflm_arena, bytes, buffers);
  if (allocator == nullptr) {
    return nullptr;
  }
#if HPX_TFLM_RESOURCE_VARIABLES > 0
  // VAR_HANDLE ops need resource variables, allocated from the same arena.
  tflite::MicroResourceVariables* variables =
      tflite::MicroResourceVariables::Create(allocator, HPX_TFLM_RESOURCE_VARIABLES);
  if (variables == nullptr) {
    return nullptr;
  }
#else
  tflite::MicroResourceVariables* variables = nullptr;
#endif
  return new (storage) Interpreter(model, g_resolver, allocator, variables, profiler);
}

}  // namespace

#include "hpx_tflm_resolver.inc"

#if HPX_CHECK_LAYERS
#include "hpx_tflm_check.inc"

// C linkage: the placement check finds the staging buffer by this symbol in the linked ELF.
// The check's memory is never zeroed at start-up (.noinit), so the counted passes start after
// exactly as many instructions as in a build without the check.
extern "C" {
__attribute__((section(".noinit"))) alignas(16) uint8_t hpx_tflm_check_staging[HPX_TFLM_CHECK_STAGING];
}

namespace {

hpx_dtype_t dtype_of(TfLiteType type) {
  switch (type) {
    case kTfLiteInt8: return HPX_DTYPE_INT8;
    case kTfLiteUInt8: return HPX_DTYPE_UINT8;
    case kTfLiteInt16: return HPX_DTYPE_INT16;
    case kTfLiteInt32: return HPX_DTYPE_INT32;
    case kTfLiteFloat32: return HPX_DTYPE_FLOAT32;
    default: return HPX_DTYPE_RAW;
  }
}

constexpr uint32_t kMaxTensors = 16;

/* The check pass's profiler: stages a layer's inputs before it, reports it after it. */
class CheckProfiler : public tflite::MicroProfilerInterface {
 public:
  void Start(TfLiteContext* context) {
    context_ = context;
    next_ = 0;
  }
  uint32_t BeginEvent(const char* tag) override {
    (void)tag;
    const uint32_t layer = next_++;
    stage_inputs(layer);
    return layer;
  }
  void EndEvent(uint32_t layer) override {
    hpx_tensor_view_t outs[kMaxTensors];
    const uint32_t count = views(hpx_tflm_check_outputs, hpx_tflm_check_out_first, layer, outs);
    if (static_cast<int32_t>(layer) == HPX_TFLM_CHECK_FAULT_LAYER && count > 0 &&
        outs[0].bytes > 0) {
      uint8_t* first = static_cast<uint8_t*>(const_cast<void*>(outs[0].data));
      first[0] = static_cast<uint8_t>(first[0] + 1u); /* a planted wrong kernel (tests) */
    }
    const uint32_t* expected = layer < HPX_TFLM_CHECK_REFERENCED
                                   ? &hpx_tflm_check_crc[hpx_tflm_check_out_first[layer]]
                                   : nullptr;
    hpx_check_layer(layer, outs, count, expected, staged_, staged_count_);
  }

 private:
  uint32_t views(const int32_t* tensors, const uint32_t* first, uint32_t layer,
                 hpx_tensor_view_t* out) {
    if (layer >= HPX_TFLM_LAYER_COUNT) {
      return 0;
    }
    uint32_t n = 0;
    for (uint32_t i = first[layer]; i < first[layer + 1] && n < kMaxTensors; i++, n++) {
      const TfLiteEvalTensor* t = context_->GetEvalTensor(context_, tensors[i]);
      size_t bytes = 0;
      if (t == nullptr || tflite::TfLiteEvalTensorByteLength(t, &bytes) != kTfLiteOk) {
        bytes = 0;
      }
      out[n] = {t != nullptr ? t->data.raw : nullptr, bytes,
                t != nullptr ? dtype_of(t->type) : HPX_DTYPE_RAW};
    }
    return n;
  }
  void stage_inputs(uint32_t layer) {
    hpx_tensor_view_t ins[kMaxTensors];
    staged_count_ = views(hpx_tflm_check_inputs, hpx_tflm_check_in_first, layer, ins);
    size_t offset = 0;
    for (uint32_t i = 0; i < staged_count_; i++) {
      size_t room = sizeof(hpx_tflm_check_staging) - offset;
      size_t bytes = ins[i].bytes < room ? ins[i].bytes : room;
      memcpy(hpx_tflm_check_staging + offset, ins[i].data, bytes);
      staged_[i] = {hpx_tflm_check_staging + offset, bytes, ins[i].dtype};
      offset += (bytes + 15u) & ~static_cast<size_t>(15u);
    }
  }

  TfLiteContext* context_ = nullptr;
  uint32_t next_ = 0;
  hpx_tensor_view_t staged_[kMaxTensors];
  uint32_t staged_count_ = 0;
};

__attribute__((section(".noinit"))) alignas(CheckProfiler) uint8_t g_check_buf[sizeof(CheckProfiler)];

}  // namespace

extern "C" int hpx_engine_check(void) {
  if (g_interpreter == nullptr) {
    return HPX_TFLM_ERR_NOT_READY;
  }
  TfLiteContext& context = g_interpreter->mutable_context();
  void* counted = context.profiler;
  CheckProfiler* check = new (g_check_buf) CheckProfiler();
  check->Start(&context);
  context.profiler = static_cast<tflite::MicroProfilerInterface*>(check);
  const TfLiteStatus status = g_interpreter->Invoke();
  context.profiler = counted;
  return status == kTfLiteOk ? 0 : HPX_TFLM_ERR_INVOKE;
}
#endif

extern "C" int hpx_engine_init(void) {
  const tflite::Model* model = tflite::GetModel(hpx_tflm_model);
  if (model->version() != TFLITE_SCHEMA_VERSION) {
    return HPX_TFLM_ERR_SCHEMA;
  }
  if (hpx_tflm_register_ops(g_resolver) != 0) {
    return HPX_TFLM_ERR_RESOLVER;
  }
  g_model = model;
  Interpreter* interpreter =
      make_interpreter(model, g_interpreter_buf, sizeof(hpx_tflm_arena), &g_profiler, &g_arena);
  if (interpreter == nullptr) {
    return HPX_TFLM_ERR_RESOURCES;
  }
  if (interpreter->AllocateTensors() != kTfLiteOk) {
    return HPX_TFLM_ERR_ALLOCATE;
  }
  if (interpreter->inputs_size() != HPX_TFLM_INPUT_COUNT) {
    return HPX_TFLM_ERR_INPUT_SHAPE;
  }
  for (size_t i = 0; i < HPX_TFLM_INPUT_COUNT; i++) {
    if (interpreter->input(i)->bytes != hpx_tflm_input_sizes[i]) {
      return HPX_TFLM_ERR_INPUT_SHAPE;
    }
  }
  g_interpreter = interpreter;
  hpx_report_metric("arena_size", HPX_TFLM_ARENA_SIZE);
  hpx_report_metric("arena_used", interpreter->arena_used_bytes());
  return 0;
}

extern "C" int hpx_engine_describe(void) {
  for (uint32_t i = 0; i < HPX_TFLM_LAYER_COUNT; i++) {
    hpx_report_layer(i, hpx_tflm_layer_names[i], hpx_tflm_layer_ops[i]);
  }
  return 0;
}

extern "C" int hpx_engine_prepare_input(uint32_t iteration) {
  (void)iteration;
  if (g_interpreter == nullptr) {
    return HPX_TFLM_ERR_NOT_READY;
  }
  for (size_t i = 0; i < HPX_TFLM_INPUT_COUNT; i++) {
    memcpy(g_interpreter->input(i)->data.raw, hpx_tflm_inputs[i], hpx_tflm_input_sizes[i]);
  }
  return 0;
}

extern "C" int hpx_engine_invoke(hpx_mode_t mode) {
  g_profiler.Start(mode == HPX_MODE_LAYERS);
  const TfLiteStatus status = g_interpreter->Invoke();
  g_profiler.Start(false);
  return status == kTfLiteOk ? 0 : HPX_TFLM_ERR_INVOKE;
}

extern "C" int hpx_engine_finish(void) {
  if (g_interpreter == nullptr) {
    return HPX_TFLM_ERR_NOT_READY;
  }
  for (size_t i = 0; i < g_interpreter->outputs_size(); i++) {
    const TfLiteTensor* out = g_interpreter->output(i);
    hpx_report_output(i, reinterpret_cast<const uint8_t*>(out->data.raw), out->bytes);
  }
  hpx_report_metric("arena_used", g_interpreter->arena_used_bytes());
  return 0;
}

#if HPX_VALIDATE_PASS
#include "hpx_validate.h"

/* The validation pass's view of the interpreter's inputs and outputs (hpx_validate.h). */
extern "C" int hpx_engine_tensor(uint32_t direction, uint32_t index, uint8_t** data,
                                 size_t* size) {
  if (g_interpreter == nullptr) {
    return HPX_TFLM_ERR_NOT_READY;
  }
  const bool input = direction == HPX_TENSOR_INPUT;
  if (index >= (input ? g_interpreter->inputs_size() : g_interpreter->outputs_size())) {
    return 1;
  }
  TfLiteTensor* tensor = input ? g_interpreter->input(index) : g_interpreter->output(index);
  *data = reinterpret_cast<uint8_t*>(tensor->data.raw);
  *size = tensor->bytes;
  return 0;
}
#endif

#if HPX_MEMORY_PASS
/* The trials' interpreter is built before each use, so it is never zeroed at start-up (like the
 * layer check's memory): start-up is the same with and without the pass. */
__attribute__((section(".noinit"))) alignas(Interpreter) uint8_t g_trial_buf[sizeof(Interpreter)];

bool fits(size_t bytes) {
  tflite::SingleArenaBufferAllocator* buffers = nullptr;
  g_quiet = true;
  Interpreter* trial = make_interpreter(g_model, g_trial_buf, bytes, nullptr, &buffers);
  const bool ok = trial != nullptr && trial->AllocateTensors() == kTfLiteOk;
  g_quiet = false;
  return ok;
}

/* The smallest arena that fits, searched above what the interpreter used (which a smaller one
 * cannot hold) up to `room`; 0 when it does not fit there. */
size_t smallest_arena(size_t used, size_t room) {
  const size_t align = tflite::MicroArenaBufferAlignment();
  size_t low = (used + align - 1) / align * align - align;
  size_t high = low + align < room ? low + align : room;
  for (size_t step = align; !fits(high); step *= 2) {
    if (high == room) {
      return 0;
    }
    low = high;
    high = high + step < room ? high + step : room;
  }
  while (high - low > align) {
    const size_t mid = low + (high - low) / 2 / align * align;
    if (fits(mid)) {
      high = mid;
    } else {
      low = mid;
    }
  }
  return high;
}

/* The firmware's interpreter made again over the whole arena, after the trials wrote over it:
 * the same calls as hpx_engine_init, so the same addresses and figures. */
bool remake_interpreter() {
  g_interpreter = nullptr;
  Interpreter* interpreter =
      make_interpreter(g_model, g_interpreter_buf, sizeof(hpx_tflm_arena), &g_profiler, &g_arena);
  if (interpreter == nullptr || interpreter->AllocateTensors() != kTfLiteOk) {
    return false;
  }
  g_interpreter = interpreter;
  return true;
}
#endif

/* The memory pass: the arena's configured, planned and persistent bytes from the allocator's
 * records, the smallest arena that fits, and its head (the planned activations and scratch
 * buffers) watched per layer. The trials run first, then the interpreter is made again (a
 * failure leaves none: the pass's input step then fails with the glue's "not ready"). */
extern "C" void hpx_engine_memory(uint32_t moment) {
  if (moment != HPX_MEMORY_BEFORE || g_interpreter == nullptr || g_arena == nullptr) {
    return;
  }
  const size_t persistent = g_arena->GetPersistentUsedBytes();
  const size_t head = g_arena->GetNonPersistentUsedBytes();
  hpx_memory_report("arena.size", sizeof(hpx_tflm_arena));
  hpx_memory_report("arena.planned", g_interpreter->arena_used_bytes());
  hpx_memory_report("arena.persistent", persistent);
  hpx_memory_report("arena.head", head);
#if HPX_MEMORY_PASS
  const size_t needed = smallest_arena(g_interpreter->arena_used_bytes(), sizeof(hpx_tflm_arena));
  if (!remake_interpreter()) {
    return;
  }
  if (needed != 0) {
    hpx_memory_report("arena.needed", needed);
  }
#endif
  const size_t align = tflite::MicroArenaBufferAlignment();
  hpx_memory_watch("arena", tflite::AlignPointerUp(hpx_tflm_arena, align), head, persistent);
}

/* TFLM's log sink: plain text lines, which the host's wire parser skips. */
extern "C" int DebugVsnprintf(char* buffer, size_t buf_size, const char* format, va_list args) {
  return vsnprintf(buffer, buf_size, format, args);
}

extern "C" void DebugLog(const char* format, va_list args) {
  if (g_quiet) {
    return;
  }
  char line[160];
  vsnprintf(line, sizeof(line), format, args);
  hpx_platform_putc('#');
  hpx_platform_putc(' ');
  for (const char* c = line; *c != '\0'; c++) {
    hpx_platform_putc(*c);
  }
  hpx_platform_putc('\n');
}
