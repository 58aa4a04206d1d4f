#include "util/byte_codec.h"

#include <gtest/gtest.h>

#include <limits>

namespace fastci::util {
namespace {

TEST(ByteCodec, RoundTripsNumbersStringsAndFlags) {
  ByteWriter w;
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{127}, std::uint64_t{128}, std::numeric_limits<std::uint64_t>::max()})
    w.u64(v);
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{63}, std::int64_t{-64}, std::numeric_limits<std::int64_t>::min(),
                         std::numeric_limits<std::int64_t>::max()})
    w.i64(v);
  w.str("");
  w.str(std::string("a\0b\xff", 4));  // not UTF-8, with a NUL: kept as it is
  w.boolean(true);
  w.boolean(false);
  ByteReader r(w.bytes());
  EXPECT_EQ(r.u64(), 0u);
  EXPECT_EQ(r.u64(), 127u);
  EXPECT_EQ(r.u64(), 128u);
  EXPECT_EQ(r.u64(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(r.i64(), 0);
  EXPECT_EQ(r.i64(), -1);
  EXPECT_EQ(r.i64(), 63);
  EXPECT_EQ(r.i64(), -64);
  EXPECT_EQ(r.i64(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(r.i64(), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(r.str(), "");
  EXPECT_EQ(r.str(), std::string("a\0b\xff", 4));
  EXPECT_TRUE(r.boolean());
  EXPECT_FALSE(r.boolean());
  EXPECT_TRUE(r.done());
}

TEST(ByteCodec, SmallValuesTakeOneByte) {
  ByteWriter w;
  w.i64(-1);
  w.u64(5);
  EXPECT_EQ(w.bytes().size(), 2u);
}

TEST(ByteCodec, ShortOrImpossibleRecordsThrow) {
  ByteWriter w;
  w.str("hello");
  std::string bytes = w.bytes();
  EXPECT_THROW(ByteReader(bytes.substr(0, 3)).str(), ByteCodecError);
  EXPECT_THROW(ByteReader("").u64(), ByteCodecError);
  EXPECT_THROW(ByteReader("\x80\x80").u64(), ByteCodecError);
  EXPECT_THROW(ByteReader("\x02").boolean(), ByteCodecError);
  ByteWriter huge;
  huge.u64(1u << 30);
  EXPECT_THROW(ByteReader(huge.bytes()).count(), ByteCodecError);
  ByteWriter wide;
  wide.i64(std::int64_t{1} << 40);
  EXPECT_THROW(ByteReader(wide.bytes()).i32(), ByteCodecError);
}

}  // namespace
}  // namespace fastci::util
