/*
 * The ExecuTorch runner: hpx_engine.h on the ExecuTorch runtime (nsx-executorch build).
 *
 * The program is loaded once; its method is loaded twice over the same planned arena: one copy
 * without an EventTracer for the clean whole-model count (Method::execute() only), one with a
 * tracer that turns every instruction's OPERATOR_CALL event into hpx_layer_begin/end. The layer
 * slot of (chain, instruction) comes from a table hpx generates from the PTE, so a layer's
 * identity (e.g. cortex_m::quantized_conv2d:c0i1) is stable across builds and boards.
 * Inputs are copied into the method's input tensors before every inference, never timed.
 * The ETDump pass (hpx_et_etdump.cpp) loads a third copy traced by ExecuTorch's own ETDumpGen
 * and runs it once from hpx_engine_finish(), after every counted pass, when hpx_et_etdump_mode
 * says so. It is linked into every build and its memory is never zeroed at start-up, so the
 * firmware is the same code at the same addresses with or without it.
 * The memory pass (hpx_memory.h) watches the planned arena up to what the program planned (the
 * inputs are copied after it is painted, and every planned tensor is written before it is
 * read), reports the method allocator's bytes for the two methods, and each operator's
 * temporary allocations: the temporary allocator holds them until the instruction ends, after
 * the tracer's end event.
 */
#include <new>
#include <string.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

#include "hpx_et_etdump.h"
#include "hpx_et_glue.h"

extern "C" {
#include "hpx_counter_backend.h"
#include "hpx_engine.h"
}

using executorch::runtime::Error;
namespace rt = executorch::runtime;

// The planned buffers, by the names hpx_plan_memory gives them (memory.py): the core checks
// each one's region after the link, and the instruction profile counts its accesses apart.
extern "C" {
HPX_ET_PLANNED_SECTION alignas(16) uint8_t hpx_et_planned_arena[HPX_ET_PLANNED_ARENA_SIZE];
HPX_ET_METHOD_SECTION alignas(16) uint8_t hpx_et_method_arena[HPX_ET_METHOD_ARENA_SIZE];
HPX_ET_TEMP_SECTION alignas(16) uint8_t hpx_et_temp_arena[HPX_ET_TEMP_ARENA_SIZE + 16];
HPX_ET_IO_SECTION alignas(16) uint8_t hpx_et_output[HPX_ET_OUTPUT_SIZE];
}

namespace {

int slot_of(int32_t chain, uint32_t instruction) {
  if (chain < 0 || chain >= HPX_ET_CHAIN_COUNT) {
    return -1;
  }
  const uint32_t first = hpx_et_chain_first[chain];
  const uint32_t count = hpx_et_chain_first[chain + 1] - first;
  if (instruction >= count) {
    return -1;
  }
  return hpx_et_slot[first + instruction];
}

/* Only OPERATOR_CALL/DELEGATE_CALL events of the layer method reach the counters. */
class LayerTracer final : public rt::EventTracer {
 public:
  void create_event_block(const char*) override {}
  rt::EventTracerEntry start_profiling(const char* name, rt::ChainID chain_id,
                                       rt::DebugHandle debug_handle) override {
    rt::EventTracerEntry entry{};
    entry.event_id = -1;
    if (name[0] != 'O' && name[0] != 'D') {
      return entry; /* Method::step, JF_CALL, MOVE_CALL, FREE_CALL: not layers */
    }
    if (strcmp(name, "OPERATOR_CALL") != 0 && strcmp(name, "DELEGATE_CALL") != 0) {
      return entry;
    }
    if (chain_id == rt::kUnsetChainId) {
      chain_id = current_chain_id();
    }
    if (debug_handle == rt::kUnsetDebugHandle) {
      debug_handle = current_debug_handle();
    }
    const int slot = slot_of(chain_id, debug_handle);
    if (slot < 0) {
      return entry;
    }
    entry.event_id = slot;
    hpx_layer_begin(static_cast<uint32_t>(slot));
    return entry;
  }
  void end_profiling(rt::EventTracerEntry entry) override {
    if (entry.event_id >= 0) {
      hpx_layer_end(static_cast<uint32_t>(entry.event_id));
    }
  }
  void track_allocation(rt::AllocatorID, size_t) override {}
  rt::AllocatorID track_allocator(const char*) override { return 0; }
  rt::EventTracerEntry start_profiling_delegate(const char*, rt::DelegateDebugIntId) override {
    return {};
  }
  void end_profiling_delegate(rt::EventTracerEntry, const void*, size_t) override {}
  void log_profiling_delegate(const char*, rt::DelegateDebugIntId, et_timestamp_t,
                              et_timestamp_t, const void*, size_t) override {}
  rt::Result<bool> log_evalue(const rt::EValue&, rt::LoggedEValueType) override { return true; }
  rt::Result<bool> log_intermediate_output_delegate(const char*, rt::DelegateDebugIntId,
                                                    const executorch::aten::Tensor&) override {
    return true;
  }
  rt::Result<bool> log_intermediate_output_delegate(
      const char*, rt::DelegateDebugIntId,
      executorch::aten::ArrayRef<executorch::aten::Tensor>) override {
    return true;
  }
  rt::Result<bool> log_intermediate_output_delegate(const char*, rt::DelegateDebugIntId,
                                                    const int&) override {
    return true;
  }
  rt::Result<bool> log_intermediate_output_delegate(const char*, rt::DelegateDebugIntId,
                                                    const bool&) override {
    return true;
  }
  rt::Result<bool> log_intermediate_output_delegate(const char*, rt::DelegateDebugIntId,
                                                    const double&) override {
    return true;
  }
  void set_delegation_intermediate_output_filter(rt::EventTracerFilterBase*) override {}
};

alignas(executorch::extension::BufferDataLoader) uint8_t g_loader_buf[sizeof(
    executorch::extension::BufferDataLoader)];
alignas(rt::Program) uint8_t g_program_buf[sizeof(rt::Program)];
alignas(rt::MemoryAllocator) uint8_t g_method_alloc_buf[sizeof(rt::MemoryAllocator)];
alignas(rt::MemoryAllocator) uint8_t g_temp_alloc_buf[sizeof(rt::MemoryAllocator)];
alignas(rt::HierarchicalAllocator) uint8_t g_planned_alloc_buf[sizeof(rt::HierarchicalAllocator)];
alignas(rt::MemoryManager) uint8_t g_manager_buf[sizeof(rt::MemoryManager)];
alignas(rt::Method) uint8_t g_whole_buf[sizeof(rt::Method)];
alignas(rt::Method) uint8_t g_layers_buf[sizeof(rt::Method)];
rt::Span<uint8_t> g_planned_spans[1];
LayerTracer g_tracer;
rt::Method* g_whole = nullptr;
rt::Method* g_layers = nullptr;
rt::MemoryAllocator* g_method_alloc = nullptr;
size_t g_method_used = 0;  /* the method allocator's bytes once both methods are loaded */
size_t g_planned_used = 0; /* the program's planned arena */
const char* g_method_name = nullptr;
Error g_last = Error::Ok;

/* Bytes taken so far: the allocator has no counter, so probe with a 1-byte allocation. */
size_t used(rt::MemoryAllocator* alloc) {
  void* probe = alloc->allocate(1, 1);
  return probe == nullptr ? alloc->size()
                          : static_cast<size_t>(static_cast<uint8_t*>(probe) - alloc->base_address());
}

int stage_error(int stage, Error error) {
  return (stage << 8) | (static_cast<int>(error) & 0xff);
}

rt::Method* load_method(rt::Program* program, rt::MemoryManager* manager, rt::EventTracer* tracer,
                        uint8_t* storage, Error* error) {
  auto method = program->load_method(g_method_name, manager, tracer);
  if (!method.ok()) {
    *error = method.error();
    return nullptr;
  }
  return new (storage) rt::Method(std::move(*method));
}

int copy_inputs(rt::Method* method) {
  if (method->inputs_size() != HPX_ET_INPUT_COUNT) {
    return stage_error(HPX_ET_STAGE_INPUT, Error::InvalidArgument);
  }
  for (size_t i = 0; i < HPX_ET_INPUT_COUNT; i++) {
    auto& value = method->mutable_input(i);
    if (!value.isTensor()) {
      return stage_error(HPX_ET_STAGE_INPUT, Error::InvalidType);
    }
    auto tensor = value.toTensor();
    if (tensor.nbytes() != hpx_et_input_sizes[i] || tensor.mutable_data_ptr() == nullptr) {
      return stage_error(HPX_ET_STAGE_INPUT, Error::InvalidArgument);
    }
    memcpy(tensor.mutable_data_ptr(), hpx_et_inputs[i], hpx_et_input_sizes[i]);
  }
  return 0;
}

}  // namespace

extern "C" int hpx_engine_init(void) {
  rt::runtime_init();
  auto* loader = new (g_loader_buf)
      executorch::extension::BufferDataLoader(hpx_et_program, hpx_et_program_size);
  auto program = rt::Program::load(loader, rt::Program::Verification::InternalConsistency);
  if (!program.ok()) {
    return stage_error(HPX_ET_STAGE_LOAD_PROGRAM, program.error());
  }
  auto* prog = new (g_program_buf) rt::Program(std::move(*program));
  auto name = prog->get_method_name(0);
  if (!name.ok()) {
    return stage_error(HPX_ET_STAGE_METHOD_META, name.error());
  }
  g_method_name = *name;
  auto meta = prog->method_meta(g_method_name);
  if (!meta.ok()) {
    return stage_error(HPX_ET_STAGE_METHOD_META, meta.error());
  }
  if (meta->num_memory_planned_buffers() > 1) {
    return stage_error(HPX_ET_STAGE_MEMORY_PLAN, Error::NotSupported);
  }
  size_t planned = 0;
  if (meta->num_memory_planned_buffers() == 1) {
    planned = static_cast<size_t>(*meta->memory_planned_buffer_size(0));
  }
  hpx_report_metric("planned_arena_required", planned);
  g_planned_used = planned;
  if (planned > sizeof(hpx_et_planned_arena)) {
    return stage_error(HPX_ET_STAGE_MEMORY_PLAN, Error::MemoryAllocationFailed);
  }
  g_planned_spans[0] = rt::Span<uint8_t>(hpx_et_planned_arena, sizeof(hpx_et_planned_arena));
  g_method_alloc = new (g_method_alloc_buf) rt::MemoryAllocator(sizeof(hpx_et_method_arena),
                                                                hpx_et_method_arena);
  auto* temp = new (g_temp_alloc_buf) rt::MemoryAllocator(HPX_ET_TEMP_ARENA_SIZE, hpx_et_temp_arena);
  auto* planned_alloc = new (g_planned_alloc_buf)
      rt::HierarchicalAllocator(rt::Span<rt::Span<uint8_t>>(g_planned_spans, 1));
  auto* manager = new (g_manager_buf) rt::MemoryManager(g_method_alloc, planned_alloc, temp);
  Error error = Error::Ok;
  g_whole = load_method(prog, manager, nullptr, g_whole_buf, &error);
  if (g_whole == nullptr) {
    g_last = error;
    return stage_error(HPX_ET_STAGE_LOAD_METHOD, error);
  }
  const size_t one_method = used(g_method_alloc);
  g_layers = load_method(prog, manager, &g_tracer, g_layers_buf, &error);
  if (g_layers == nullptr) {
    return stage_error(HPX_ET_STAGE_LOAD_METHOD, error);
  }
  hpx_report_metric("planned_arena_size", sizeof(hpx_et_planned_arena));
  hpx_report_metric("method_arena_size", sizeof(hpx_et_method_arena));
  hpx_report_metric("method_arena_used_per_method", one_method);
  g_method_used = used(g_method_alloc);
  hpx_report_metric("method_arena_used", g_method_used);
  return 0;
}

extern "C" int hpx_engine_describe(void) {
  for (uint32_t i = 0; i < HPX_ET_LAYER_COUNT; i++) {
    hpx_report_layer(i, hpx_et_layer_names[i], hpx_et_layer_ops[i]);
  }
  return 0;
}

extern "C" int hpx_engine_prepare_input(uint32_t iteration) {
  (void)iteration;
  int rc = copy_inputs(g_whole);
  return rc != 0 ? rc : copy_inputs(g_layers);
}

extern "C" int hpx_engine_invoke(hpx_mode_t mode) {
  rt::Method* method = mode == HPX_MODE_LAYERS ? g_layers : g_whole;
  const Error error = method->execute();
  return error == Error::Ok ? 0 : stage_error(HPX_ET_STAGE_EXECUTE, error);
}

extern "C" int hpx_engine_finish(void) {
  for (size_t i = 0; i < g_whole->outputs_size(); i++) {
    const auto& value = g_whole->get_output(i);
    if (!value.isTensor()) {
      return stage_error(HPX_ET_STAGE_OUTPUT, Error::InvalidType);
    }
    const auto tensor = value.toTensor();
    const size_t size =
        tensor.nbytes() < sizeof(hpx_et_output) ? tensor.nbytes() : sizeof(hpx_et_output);
    memcpy(hpx_et_output, tensor.const_data_ptr(), size);
    hpx_report_output(i, hpx_et_output, size);
  }
  hpx_report_metric("temp_arena_size", HPX_ET_TEMP_ARENA_SIZE);
  if (hpx_et_etdump_mode == 0) {
    return 0;
  }
  const HpxEtProgram program = {reinterpret_cast<rt::Program*>(g_program_buf), g_method_name,
                                reinterpret_cast<rt::HierarchicalAllocator*>(g_planned_alloc_buf),
                                reinterpret_cast<rt::MemoryAllocator*>(g_temp_alloc_buf),
                                copy_inputs};
  const int rc = hpx_et_etdump_pass(&program); /* 0, an Error, or copy_inputs()'s code */
  return rc == 0 || rc > 0xff ? rc : stage_error(HPX_ET_STAGE_ETDUMP, static_cast<Error>(rc));
}

#if HPX_VALIDATE_PASS
#include "hpx_validate.h"

/* The validation pass's view of the whole-inference method's inputs and outputs
 * (hpx_validate.h): outputs in the device's memory order, as hpx_report_output sends them. */
extern "C" int hpx_engine_tensor(uint32_t direction, uint32_t index, uint8_t** data,
                                 size_t* size) {
  const bool input = direction == HPX_TENSOR_INPUT;
  if (index >= (input ? g_whole->inputs_size() : g_whole->outputs_size())) {
    return 1;
  }
  auto& value = input ? g_whole->mutable_input(index) : g_whole->mutable_output(index);
  if (!value.isTensor()) {
    return stage_error(input ? HPX_ET_STAGE_INPUT : HPX_ET_STAGE_OUTPUT, Error::InvalidType);
  }
  auto tensor = value.toTensor();
  *data = static_cast<uint8_t*>(tensor.mutable_data_ptr());
  *size = tensor.nbytes();
  return 0;
}
#endif

/* The memory pass: the three arenas' configured and planned bytes, the planned arena watched,
 * and after each operator the temporary allocator's bytes (probing it costs nothing: the
 * method resets it when the instruction ends). */
extern "C" void hpx_engine_memory(uint32_t moment) {
  if (moment == HPX_MEMORY_BEFORE) {
    hpx_memory_report("planned.size", sizeof(hpx_et_planned_arena));
    hpx_memory_report("planned.planned", g_planned_used);
    hpx_memory_report("method.size", sizeof(hpx_et_method_arena));
    hpx_memory_report("method", g_method_used);
    hpx_memory_report("method.at", reinterpret_cast<uintptr_t>(hpx_et_method_arena));
    hpx_memory_report("temp.size", HPX_ET_TEMP_ARENA_SIZE);
    hpx_memory_report("temp.at", reinterpret_cast<uintptr_t>(hpx_et_temp_arena));
    hpx_memory_watch("planned", hpx_et_planned_arena, g_planned_used, 0);
  } else if (moment != HPX_MEMORY_AFTER) {
    hpx_memory_report("temp", used(reinterpret_cast<rt::MemoryAllocator*>(g_temp_alloc_buf)));
  }
}

/* ExecuTorch's platform layer: no logging, no heap; aborts trap (the ETDump pass first says
 * why, when it was running); time is hpx's counter since start-up in its units (ETDump's
 * timestamps: instructions on the emulated boards, whose SysTick reads convert exactly only as
 * spans, so each timestamp is within one instruction; cycles on silicon). */
extern "C" void et_pal_init(void) {}
extern "C" void et_pal_abort(void) {
  hpx_et_etdump_abort();
  while (1) {
    __asm volatile("bkpt 0");
  }
}
extern "C" et_timestamp_t et_pal_current_ticks(void) {
  return hpx_counter_span(0, hpx_counter_read());
}
extern "C" et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) { return {1, 1}; }
extern "C" void et_pal_emit_log_message(et_timestamp_t, et_pal_log_level_t, const char*,
                                        const char*, size_t, const char*, size_t) {}
extern "C" void* et_pal_allocate(size_t) { return nullptr; }
extern "C" void et_pal_free(void*) {}
