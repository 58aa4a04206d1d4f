#include "frontend/python/interned_edges.h"

#include <gtest/gtest.h>

namespace fastci::frontend::python {
namespace {

TEST(InternedEdges, ExpandsEachFilesEdgesInTheOrderMadeAfterTheOnesItHeld) {
  const std::string a = "py:m.a", b = "py:m.b", c = "py:n.c";
  const std::vector<const std::string*> texts = {&a, &b, &c};
  std::vector<FileFacts> files(2);
  files[0].path = "m.py";
  files[0].edges.push_back({"py:m", "py:m.a", EdgeKind::contains, "", 1});  // from parsing
  files[1].path = "n.py";
  InternedEdges edges(2);
  edges.add(0, 0, 2, EdgeKind::call, 3);
  edges.add(1, 2, 1, EdgeKind::read, 7);
  edges.add(0, 1, 0, EdgeKind::fixture, 9);
  edges.expand_into(files, texts);
  ASSERT_EQ(files[0].edges.size(), 3u);
  EXPECT_EQ(files[0].edges[0].kind, EdgeKind::contains);
  EXPECT_EQ(files[0].edges[1].from, "py:m.a");
  EXPECT_EQ(files[0].edges[1].to, "py:n.c");
  EXPECT_EQ(files[0].edges[1].line, 3);
  EXPECT_TRUE(files[0].edges[1].file.empty());
  EXPECT_EQ(files[0].edges[2].from, "py:m.b");
  EXPECT_EQ(files[0].edges[2].kind, EdgeKind::fixture);
  ASSERT_EQ(files[1].edges.size(), 1u);
  EXPECT_EQ(files[1].edges[0].from, "py:n.c");
  EXPECT_EQ(files[1].edges[0].to, "py:m.b");
  EXPECT_EQ(files[1].edges[0].kind, EdgeKind::read);
  // expanded once: a second call adds nothing
  edges.expand_into(files, texts);
  EXPECT_EQ(files[0].edges.size(), 3u);
}

}  // namespace
}  // namespace fastci::frontend::python
