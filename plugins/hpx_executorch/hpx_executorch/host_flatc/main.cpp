// flatc with only the generators C++ headers need; see CMakeLists.txt beside this file.
// Its messages and its exit on error are upstream flatc_main.cpp's.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "flatbuffers/flatc.h"
#include "idl_gen_binary.h"
#include "idl_gen_cpp.h"
#include "idl_gen_text.h"

static const char *g_program_name = nullptr;

static void Warn(const flatbuffers::FlatCompiler *, const std::string &warn,
                 bool show_exe_name) {
  if (show_exe_name) { printf("%s: ", g_program_name); }
  fprintf(stderr, "\nwarning:\n  %s\n\n", warn.c_str());
}

static void Error(const flatbuffers::FlatCompiler *flatc, const std::string &err,
                  bool usage, bool show_exe_name) {
  if (show_exe_name) { printf("%s: ", g_program_name); }
  if (usage && flatc) {
    fprintf(stderr, "%s\n", flatc->GetShortUsageString(g_program_name).c_str());
  }
  fprintf(stderr, "\nerror:\n  %s\n\n", err.c_str());
  exit(1);
}

namespace flatbuffers {
void LogCompilerWarn(const std::string &warn) { Warn(nullptr, warn, true); }
void LogCompilerError(const std::string &err) { Error(nullptr, err, false, true); }

// The C++ generator's --grpc option lives with the gRPC generators, which are not built.
bool GenerateCppGRPC(const Parser &, const std::string &, const std::string &) {
  LogCompilerError("this flatc has no gRPC generator");
  return false;
}
}  // namespace flatbuffers

int main(int argc, const char *argv[]) {
  g_program_name = argv[0];
  flatbuffers::FlatCompiler::InitParams params;
  params.warn_fn = Warn;
  params.error_fn = Error;
  flatbuffers::FlatCompiler flatc(params);
  flatc.RegisterCodeGenerator(
      flatbuffers::FlatCOption{"b", "binary", "",
                               "Generate wire format binaries for any data definitions"},
      flatbuffers::NewBinaryCodeGenerator());
  flatc.RegisterCodeGenerator(
      flatbuffers::FlatCOption{"c", "cpp", "", "Generate C++ headers for tables/structs"},
      flatbuffers::NewCppCodeGenerator());
  flatc.RegisterCodeGenerator(
      flatbuffers::FlatCOption{"t", "json", "",
                               "Generate text output for any data definitions"},
      flatbuffers::NewTextCodeGenerator());
  return flatc.Compile(flatc.ParseFromCommandLineArguments(argc, argv));
}
