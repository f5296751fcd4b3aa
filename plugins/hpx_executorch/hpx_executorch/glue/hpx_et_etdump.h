/*
 * The ETDump pass of the ExecuTorch runner, in a file of its own (hpx_et_etdump.cpp) that only
 * a firmware writing an ETDump links. The runner sees it through weak symbols, so the runner is
 * the same code in every build.
 */
#ifndef HPX_ET_ETDUMP_H
#define HPX_ET_ETDUMP_H

#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

/* What the pass loads its own method from: the runner's program and shared arenas. */
struct HpxEtProgram {
  executorch::runtime::Program* program;
  const char* method_name;
  executorch::runtime::HierarchicalAllocator* planned;
  executorch::runtime::MemoryAllocator* temp;
  int (*copy_inputs)(executorch::runtime::Method* method);
};

/* One inference traced by ETDumpGen, its ETDump sent as FILE records: 0, an
 * executorch::runtime::Error, or copy_inputs()'s code. Null when not linked. */
extern "C" int hpx_et_etdump_pass(const HpxEtProgram* program) __attribute__((weak));
/* Called by et_pal_abort(): says so on the wire when the pass was running. Null when not
 * linked. */
extern "C" void hpx_et_etdump_abort(void) __attribute__((weak));

#endif
