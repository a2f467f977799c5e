// FlatIndex and DenseIndex: rows found by their keys whatever the table's
// growth, and the guess likely_row() makes for prefetching.
#include "graphgen/flat_index.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace graphgen::flat_index_test {
namespace {

// Keys whose hashes share their low bits (one probe path), and others.
std::uint64_t hash_of(std::uint64_t key) { return key % 3 == 0 ? (key << 32) | 7 : FlatIndex::mix(key); }

std::vector<std::int64_t> rows_after(FlatIndex& index, std::vector<std::uint64_t>& keys, std::size_t n) {
  for (std::uint64_t k = 0; k < n; ++k)
    index.find_or_add(
        hash_of(k), [&](std::uint32_t r) { return keys[r] == k; },
        [&] {
          keys.push_back(k);
          return static_cast<std::uint32_t>(keys.size() - 1);
        });
  std::vector<std::int64_t> rows;
  for (std::uint64_t k = 0; k < n + 100; ++k)
    rows.push_back(index.find(hash_of(k), [&](std::uint32_t r) { return keys[r] == k; }));
  return rows;
}

// hash_bytes() reads a string's last bytes with loads of a fixed size: the
// same hash as copying them into a zeroed word, for every length and
// place, whatever bytes lie around the string.
TEST(FlatIndex, HashOfBytesDependsOnTheirsAlone) {
  auto copied = [](std::string_view s, std::uint64_t seed) {
    std::uint64_t h = seed ^ (s.size() * 0x9E3779B97F4A7C15ull);
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 32;
    }
    std::uint64_t tail = 0;
    if (i < s.size()) std::memcpy(&tail, s.data() + i, s.size() - i);
    return FlatIndex::mix(h, tail);
  };
  std::string around(64, '\xff');
  for (std::size_t n = 0; n <= 40; ++n)
    for (std::size_t at = 8; at < 16; ++at) {
      std::string buf = around;
      for (std::size_t k = 0; k < n; ++k) buf[at + k] = static_cast<char>('a' + (k * 7 + n) % 26);
      const std::string_view s(buf.data() + at, n);
      EXPECT_EQ(FlatIndex::hash_bytes(s, 5), copied(s, 5)) << n << " at " << at;
      std::string other = buf;
      for (char& c : other) c = c == '\xff' ? '\x01' : c;
      EXPECT_EQ(FlatIndex::hash_bytes(std::string_view(other.data() + at, n)), FlatIndex::hash_bytes(s)) << n;
    }
}

TEST(FlatIndex, ReservedOrGrownTheSameRowsAreFound) {
  const std::size_t n = 5000;
  FlatIndex grown, reserved;
  reserved.reserve(n);
  reserved.reserve(0);  // (no key: nothing changes)
  std::vector<std::uint64_t> a, b;
  std::vector<std::int64_t> ra = rows_after(grown, a, n), rb = rows_after(reserved, b, n);
  EXPECT_EQ(ra, rb);
  for (std::uint64_t k = 0; k < n; ++k) ASSERT_EQ(ra[k], static_cast<std::int64_t>(k));
  for (std::uint64_t k = n; k < n + 100; ++k) ASSERT_EQ(ra[k], -1);
  EXPECT_EQ(reserved.size(), n);
}

// Filled to three quarters (the callsite tree's index) or to half, grown
// or reserved, with a third of the keys on one probe path: the same rows.
TEST(FlatIndex, FilledToThreeQuartersTheSameRowsAreFound) {
  for (std::size_t n : {700u, 768u, 5000u, 50000u}) {
    FlatIndex half, grown{3}, reserved{3};
    reserved.reserve(n);
    std::vector<std::uint64_t> a, b, c;
    std::vector<std::int64_t> ra = rows_after(half, a, n), rb = rows_after(grown, b, n),
                              rc = rows_after(reserved, c, n);
    EXPECT_EQ(ra, rb) << n;
    EXPECT_EQ(ra, rc) << n;
    EXPECT_EQ(grown.size(), n);
  }
}

TEST(FlatIndex, LikelyRowIsTheFirstTagMatch) {
  FlatIndex index;
  EXPECT_EQ(index.likely_row(42), -1);  // empty
  std::vector<std::uint64_t> keys;
  rows_after(index, keys, 100);
  // A key with its own hash: the row find() returns.
  EXPECT_EQ(index.likely_row(hash_of(1)), 1);
  // Keys 0, 3, 6, ... share one hash: the first added is the first on the
  // path, whatever key is asked for (find() then compares keys).
  EXPECT_EQ(index.likely_row(hash_of(3)), 0);
  EXPECT_EQ(index.likely_row(FlatIndex::mix(1000)), -1);  // never added
}

// DenseIndex: each key's row whatever the table grew or was reserved to,
// with a third of the keys on one probe path with one hash, asked again
// after every growth; a key added once.
TEST(DenseIndex, ReservedOrGrownTheSameRowsAreFound) {
  for (std::size_t n : {1u, 511u, 512u, 5000u, 70000u}) {
    DenseIndex grown, reserved;
    reserved.reserve(n, [](std::uint32_t) -> std::uint32_t { return 0; });  // (no rows yet: not asked)
    for (DenseIndex* index : {&grown, &reserved}) {
      std::vector<std::uint64_t> keys;
      std::size_t adds = 0;
      auto row_of = [&](std::uint64_t k) {
        return index->find_or_add(
            static_cast<std::uint32_t>(hash_of(k)), [&](std::uint32_t r) { return keys[r] == k; },
            [&] {
              ++adds;
              keys.push_back(k);
              return static_cast<std::uint32_t>(keys.size() - 1);
            },
            [&](std::uint32_t r) { return static_cast<std::uint32_t>(hash_of(keys[r])); });
      };
      for (std::uint64_t k = 0; k < n; ++k) ASSERT_EQ(row_of(k), k) << n;
      for (std::uint64_t k = 0; k < n; ++k) ASSERT_EQ(row_of(k), k) << n;
      EXPECT_EQ(adds, n);
      EXPECT_EQ(index->size(), n);
    }
  }
}

// Slots given back keep the rows: the next lookup places them again
// (their hashes asked in row order) and finds each, and adds on after them.
TEST(DenseIndex, RowsAreFoundAgainAfterTheSlotsAreGivenBack) {
  DenseIndex index;
  std::vector<std::uint64_t> keys;
  auto row_of = [&](std::uint64_t k) {
    return index.find_or_add(
        static_cast<std::uint32_t>(hash_of(k)), [&](std::uint32_t r) { return keys[r] == k; },
        [&] {
          keys.push_back(k);
          return static_cast<std::uint32_t>(keys.size() - 1);
        },
        [&](std::uint32_t r) { return static_cast<std::uint32_t>(hash_of(keys[r])); });
  };
  for (std::uint64_t k = 0; k < 3000; ++k) ASSERT_EQ(row_of(k), k);
  index.release();
  EXPECT_EQ(index.size(), 3000u);
  for (std::uint64_t k = 0; k < 3000; ++k) ASSERT_EQ(row_of(k), k);
  EXPECT_EQ(row_of(99999), 3000u);
  EXPECT_EQ(keys.size(), 3001u);
}

// The hash's bits above a slot's place are its tag: keys placed on one
// path whose hashes differ above it are told apart without asking equal(),
// also after the table grew and the tags lost their lowest bits.
TEST(DenseIndex, TagsAboveThePlaceSpareTheKeyComparisons) {
  DenseIndex index;
  std::vector<std::uint32_t> hashes;
  std::size_t asked = 0;
  auto add = [&](std::uint32_t h) {
    return index.find_or_add(
        h,
        [&](std::uint32_t r) {
          ++asked;
          return hashes[r] == h;
        },
        [&] {
          hashes.push_back(h);
          return static_cast<std::uint32_t>(hashes.size() - 1);
        },
        [&](std::uint32_t r) { return hashes[r]; });
  };
  // 300 keys on one path of the first 1024 slots (the low 20 bits equal).
  for (std::uint32_t k = 0; k < 300; ++k) ASSERT_EQ(add(k << 20 | 5), k);
  EXPECT_EQ(asked, 0u);
  for (std::uint32_t k = 0; k < 300; ++k) ASSERT_EQ(add(k << 20 | 5), k);
  EXPECT_EQ(asked, 300u);  // each found row's key compared once
  // Grown to 4096 slots and more by other keys: the same rows.
  for (std::uint32_t k = 0; k < 5000; ++k) add(FlatIndex::mix(k) & 0xFFFFF);
  asked = 0;
  for (std::uint32_t k = 0; k < 300; ++k) ASSERT_EQ(add(k << 20 | 5), k);
  EXPECT_EQ(asked, 300u);
}

// Each owner's rows in an index of its own: one key under two owners is two
// rows, and an owner's rows are found whatever its table grew to (8 slots
// first, rows placed again by their hashes), with keys whose hashes share
// one probe path among them.
TEST(GroupedIndex, AnOwnersRowsAreFoundAndOnlyUnderIt) {
  GroupedIndex index;
  struct Row {
    std::uint32_t owner;
    std::uint64_t key;
  };
  std::vector<Row> rows;
  auto add = [&](std::uint32_t owner, std::uint64_t key) {
    return index.find_or_add(
        owner, hash_of(key), [&](std::uint32_t r) { return rows[r].owner == owner && rows[r].key == key; },
        [&] {
          rows.push_back({owner, key});
          return static_cast<std::uint32_t>(rows.size() - 1);
        },
        [&](std::uint32_t r) { return hash_of(rows[r].key); });
  };
  auto find = [&](std::uint32_t owner, std::uint64_t key) {
    return index.find(owner, hash_of(key),
                      [&](std::uint32_t r) { return rows[r].owner == owner && rows[r].key == key; });
  };
  // Owners 5, 0 and 700 (out of order: the table of owners grows), keys
  // interleaved as a file lists them.
  const std::uint32_t owners[] = {5, 0, 700};
  std::vector<std::uint32_t> first;
  for (std::uint64_t k = 0; k < 300; ++k)
    for (std::uint32_t o : owners) first.push_back(add(o, k));
  ASSERT_EQ(rows.size(), 900u);
  std::size_t i = 0;
  for (std::uint64_t k = 0; k < 300; ++k)
    for (std::uint32_t o : owners) {
      EXPECT_EQ(add(o, k), first[i]);  // found, not added again
      EXPECT_EQ(find(o, k), static_cast<std::int64_t>(first[i]));
      ++i;
    }
  EXPECT_EQ(rows.size(), 900u);
  EXPECT_EQ(find(1, 0), -1);     // an owner with no rows
  EXPECT_EQ(find(9999, 0), -1);  // past every owner
  EXPECT_EQ(find(5, 300), -1);   // a key never added
  // Its bytes: three owners of 300 rows, 1 024 slots of 4 bytes each, and
  // the table of owners (701 or more).
  EXPECT_GE(index.bytes(), 3u * 1024 * 4 + 701 * 8);
  EXPECT_LE(index.bytes(), 3u * 1024 * 4 + 1402 * 64);
}

}  // namespace
}  // namespace graphgen::flat_index_test
