#include "planner/unread_headers.h"

#include <gtest/gtest.h>

namespace fastci::planner {
namespace {

ChangeSet header_change(const std::string& path) {
  ChangeSet changes;
  ChangedFile file;
  file.path = path;
  file.kind = FileKind::native;
  changes.files.push_back(file);
  changes.widenings.push_back({Widening::Scope::everything, path, kNativeWithoutFacts, {}});
  return changes;
}

frontend::FileFacts unit(const std::string& path, const std::string& missing) {
  frontend::FileFacts facts;
  facts.path = path;
  facts.diagnostics.push_back({frontend::Diagnostic::Severity::error, path, 3,
                               "missing include " + missing + " (skipped; declarations from it are unknown)"});
  return facts;
}

TEST(UnreadHeaders, AnIncludeClangCouldNotFindWidensToThatUnitOnly) {
  auto changes = header_change("csrc/aio/common/deepspeed_aio_utils.h");
  const auto reader = unit("csrc/aio/py_lib/py_ds_aio.cpp", "\"deepspeed_aio_utils.h\"");
  const auto other = unit("csrc/adam/cpu_adam.cpp", "<cuda_runtime_api.h>");
  place_unread_headers({&other, &reader}, changes);
  ASSERT_EQ(changes.widenings.size(), 1u);
  EXPECT_EQ(changes.widenings[0].scope, Widening::Scope::native_units);
  EXPECT_EQ(changes.widenings[0].file, "csrc/aio/py_lib/py_ds_aio.cpp");
  EXPECT_NE(changes.widenings[0].reason.find("csrc/aio/py_lib/py_ds_aio.cpp:3 includes \"deepspeed_aio_utils.h\""),
            std::string::npos);
}

TEST(UnreadHeaders, ANameMatchesOnlyAtAPathBoundary) {
  auto changes = header_change("csrc/includes/my_utils.h");
  const auto reader = unit("csrc/a.cpp", "\"utils.h\"");
  place_unread_headers({&reader}, changes);
  EXPECT_TRUE(changes.widenings.empty());
  EXPECT_NE(changes.files[0].note.find("no compiled code reads it"), std::string::npos);
}

TEST(UnreadHeaders, SourcesAndOtherWideningsStay) {
  auto changes = header_change("csrc/kernel.cu");  // a unit without facts is not a header question
  changes.widenings.push_back({Widening::Scope::everything, "setup.py", "build, dependency or CI configuration changed", {}});
  place_unread_headers({}, changes);
  EXPECT_EQ(changes.widenings.size(), 2u);
  EXPECT_TRUE(changes.files[0].note.empty());
}

}  // namespace
}  // namespace fastci::planner
