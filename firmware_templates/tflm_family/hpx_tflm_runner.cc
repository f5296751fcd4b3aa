/*
 * The MicroInterpreter runner: hpx_engine.h on TFLite Micro.
 *
 * Every operator invocation is one layer: a MicroProfilerInterface turns TFLM's per-operator
 * BeginEvent/EndEvent into hpx_layer_begin/hpx_layer_end with the invocation's position as the
 * layer index. In the whole-inference mode the profiler stays installed (TFLM has no public way
 * to detach it) but returns at once, so only a virtual call per operator lands in the count.
 * Inputs are refilled before every inference (TFLM's planner reuses the input's memory).
 */
#include <new>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hpx_tflm_glue.h"
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

alignas(tflite::MicroInterpreter) uint8_t g_interpreter_buf[sizeof(tflite::MicroInterpreter)];
HpxOpResolver g_resolver;
LayerProfiler g_profiler;
tflite::MicroInterpreter* g_interpreter = nullptr;

tflite::MicroInterpreter* make_interpreter(const tflite::Model* model) {
#if HPX_TFLM_RESOURCE_VARIABLES > 0
  // VAR_HANDLE ops need resource variables, allocated from the same arena.
  tflite::MicroAllocator* allocator = tflite::MicroAllocator::Create(hpx_tflm_arena, sizeof(hpx_tflm_arena));
  if (allocator == nullptr) {
    return nullptr;
  }
  tflite::MicroResourceVariables* variables =
      tflite::MicroResourceVariables::Create(allocator, HPX_TFLM_RESOURCE_VARIABLES);
  if (variables == nullptr) {
    return nullptr;
  }
  return new (g_interpreter_buf)
      tflite::MicroInterpreter(model, g_resolver, allocator, variables, &g_profiler);
#else
  return new (g_interpreter_buf) tflite::MicroInterpreter(
      model, g_resolver, hpx_tflm_arena, sizeof(hpx_tflm_arena), nullptr, &g_profiler);
#endif
}

}  // namespace

#include "hpx_tflm_resolver.inc"

extern "C" int hpx_engine_init(void) {
  const tflite::Model* model = tflite::GetModel(hpx_tflm_model);
  if (model->version() != TFLITE_SCHEMA_VERSION) {
    return HPX_TFLM_ERR_SCHEMA;
  }
  if (hpx_tflm_register_ops(g_resolver) != 0) {
    return HPX_TFLM_ERR_RESOLVER;
  }
  tflite::MicroInterpreter* interpreter = make_interpreter(model);
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

/* TFLM's log sink: plain text lines, which the host's wire parser skips. */
extern "C" int DebugVsnprintf(char* buffer, size_t buf_size, const char* format, va_list args) {
  return vsnprintf(buffer, buf_size, format, args);
}

extern "C" void DebugLog(const char* format, va_list args) {
  char line[160];
  vsnprintf(line, sizeof(line), format, args);
  hpx_platform_putc('#');
  hpx_platform_putc(' ');
  for (const char* c = line; *c != '\0'; c++) {
    hpx_platform_putc(*c);
  }
  hpx_platform_putc('\n');
}
