/* The ETDump pass of the ExecuTorch runner (hpx_et_etdump.cpp), switched by
 * hpx_et_etdump_mode (hpx_et_glue.h). */
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
 * executorch::runtime::Error, or copy_inputs()'s code. */
extern "C" int hpx_et_etdump_pass(const HpxEtProgram* program);
/* Called by et_pal_abort(): says so on the wire when the pass was running. */
extern "C" void hpx_et_etdump_abort(void);

#endif
