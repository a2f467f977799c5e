// graphgen-mpi: graphgen's merge on the MPI job people already run, for
// rank files beyond one node's patience:
//
//   mpirun -np K graphgen-mpi cpu_*.prof -o merged.pstats
//
// Each of the K processes reads and merges one contiguous share of the
// inputs (in the order the format merges them), then the shares are reduced
// to process 0 in a binomial tree: at step s, a process whose number has
// bit s set sends its share (graphgen's wire encoding: the profile, the
// exact partials of its floating costs, its per-rank statistics) to the
// process 2^s below it, which appends it to its own. Shares are combined in
// input order and floating costs add exactly, so the result is the
// single-process merge, byte for byte. Process 0 writes the output.
#include <fmt/format.h>
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <string>

#include "command_line.h"
#include "graphgen/io.h"
#include "graphgen/wire.h"
#include "pipeline.h"
#include "share_wire.h"

namespace {

using namespace graphgen;
using cli::fail;

constexpr int kTag = 7;
constexpr std::size_t kChunk = std::size_t{1} << 30;  // MPI counts are ints

// Sends a message of any size: its length, then chunks below INT_MAX.
void send(const std::string& bytes, int to) {
  std::uint64_t size = bytes.size();
  MPI_Send(&size, 1, MPI_UINT64_T, to, kTag, MPI_COMM_WORLD);
  for (std::size_t at = 0; at < bytes.size(); at += kChunk)
    MPI_Send(bytes.data() + at, static_cast<int>(std::min(kChunk, bytes.size() - at)), MPI_BYTE, to, kTag,
             MPI_COMM_WORLD);
}

std::string receive(int from) {
  std::uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, from, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string bytes(size, '\0');
  for (std::size_t at = 0; at < bytes.size(); at += kChunk)
    MPI_Recv(bytes.data() + at, static_cast<int>(std::min<std::size_t>(kChunk, bytes.size() - at)), MPI_BYTE, from,
             kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return bytes;
}

// A process's result on its way to process 0: its share, or the first
// error met in its shares (in input order), and the warnings.
struct Result {
  std::optional<pipeline::MergedShare> share;
  std::optional<Error> error;
  std::vector<std::string> warnings;
};

std::string encode(const Result& r) {
  wire::Writer w;
  w.put<std::uint64_t>(r.warnings.size());
  for (const std::string& s : r.warnings) w.bytes(s);
  w.put<std::uint8_t>(r.error.has_value());
  if (r.error) {
    w.put(r.error->kind);
    w.bytes(r.error->message);
  } else {
    w.bytes(pipeline::encode_share(*r.share));
  }
  return w.take();
}

Result decode(const std::string& bytes, const pipeline::Request& request, const formats::InputFormat& format,
              int from) {
  Result r;
  wire::Reader in(bytes);
  const std::string who = fmt::format("graphgen-mpi process {}", from);
  auto warnings = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < warnings && in.ok(); ++i) r.warnings.emplace_back(in.bytes());
  bool failed = in.get<std::uint8_t>() != 0;
  if (failed) {
    auto kind = in.get<Error::Kind>();
    std::string message(in.bytes());
    r.error = in.ok() ? Error{kind, message} : bad_input(fmt::format("{}: a damaged message", who));
    return r;
  }
  std::string_view share = in.bytes();
  if (!in.ok()) {
    r.error = bad_input(fmt::format("{}: a damaged message", who));
    return r;
  }
  auto decoded = pipeline::decode_share(share, request, format, who);
  if (decoded)
    r.share = std::move(decoded).value();
  else
    r.error = decoded.error();
  return r;
}

int run(const pipeline::Settings& settings, int rank, int size) {
  Diagnostics diag;
  auto options = pipeline::make_options(settings, diag);
  auto usage = [&](const Error& e) { return rank == 0 ? fail(e) : (e.kind == Error::Kind::kBadUsage ? 2 : 1); };
  if (rank == 0) cli::report(diag, cli::quiet(settings));
  diag.clear();
  if (!options) return usage(options.error());
  const pipeline::Options& a = *options;
  const pipeline::Request* request = &a.request;
  if (request->output->needs == formats::Needs::kRanks && request->output->rendered)
    return usage(bad_usage(
        "graphgen-mpi writes per-rank tables (-T ranks, ranks.csv, ranks.json); draw the heatmap with graphgen, "
        "which reads 100 000 rank files in a minute"));
  // Every process decides alike (they all must reach the same MPI calls).
  if (auto ok = check_output_is_not_an_input(a.output, request->inputs); !ok) return usage(ok.error());

  // Every process finds the format the same way (from the first input).
  auto format = pipeline::input_format_of(*request);
  if (!format) return usage(format.error());
  if (auto ok = formats::check_pair(**format, *request->output); !ok) return usage(ok.error());
  // (The HTML report has a ranks table when there are several inputs and
  // no filter, as graphgen's has.)
  const bool report_ranks = request->output->needs == formats::Needs::kReport && request->inputs.size() > 1;
  if (report_ranks && !request->filters.empty() && rank == 0)
    diag.warn(
        "the report has no ranks table: --focus, --ignore, --hide and --show apply to the merged profile, "
        "not to each rank");
  const bool ranks = request->output->needs == formats::Needs::kRanks || request->write.imbalance ||
                     (report_ranks && request->filters.empty());

  // This process's share: positions [begin, end) of the merge order.
  const std::size_t n = request->inputs.size();
  const std::size_t begin = n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(size);
  const std::size_t end = n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(size);
  Result mine;
  auto share = pipeline::read_share(*request, **format, begin, end, ranks, diag);
  mine.warnings = diag.warnings();
  diag.clear();
  if (share)
    mine.share = std::move(share).value();
  else
    mine.error = share.error();

  // The binomial tree: shares flow to process 0, each appended after the
  // receiver's own (the sender's inputs come later in the merge order).
  for (int step = 1; step < size; step <<= 1) {
    if (rank & step) {
      send(encode(mine), rank - step);
      break;
    }
    if (rank + step >= size) continue;
    Result theirs = decode(receive(rank + step), *request, **format, rank + step);
    mine.warnings.insert(mine.warnings.end(), theirs.warnings.begin(), theirs.warnings.end());
    if (mine.error) continue;  // the first error in input order stands
    if (theirs.error) {
      mine.error = theirs.error;
      mine.share.reset();
      continue;
    }
    if (auto ok = pipeline::combine_shares(*mine.share, std::move(*theirs.share)); !ok) {
      mine.error = ok.error();
      mine.share.reset();
    }
  }
  if (rank != 0) return 0;

  Diagnostics warnings;
  for (const std::string& w : mine.warnings) warnings.warn(w);
  if (mine.error) {
    cli::report(warnings, a.quiet);
    return fail(*mine.error);
  }
  pipeline::Output out;
  out.input_bytes = mine.share->input_bytes;
  RankTable table;
  // (pstats' report names the files read, as graphgen's does.)
  const std::optional<pipeline::Request> named =
      pipeline::name_merged_files(*request, **format, mine.share->skipped_at);
  if (named) request = &*named;
  auto profile = pipeline::finish_share(std::move(*mine.share), *request, warnings, ranks ? &table : nullptr);
  if (!profile) {
    cli::report(warnings, a.quiet);
    return fail(profile.error());
  }
  if (ranks) out.ranks = std::move(table);
  auto ok = pipeline::convert_profile(std::move(profile).value(), **format, *request, warnings, out);
  cli::report(warnings, a.quiet);
  if (!ok) return fail(ok.error());
  auto written = write_output(a.output, out.bytes);
  if (!written) return fail(written.error());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  graphgen::tune_malloc_for_this_run();
  // --help and --version need no MPI: they work where MPI_Init cannot
  // (as root without mpirun's consent, in a chroot without shared memory).
  bool informational = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    informational = informational || a == "-h" || a == "--help" || a == "--help-all" || a == "--version";
  }
  int rank = 0, size = 1;
  if (!informational) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  cli::use_logger("graphgen-mpi");

  int status = 0;
  // Only process 0 speaks: help, version and usage errors once, not K
  // times (the others' warnings travel to it with their shares).
  if (rank != 0) {
    std::fflush(stdout);
    std::fflush(stderr);
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) status = 1;
  }
  if (status == 0) {
    pipeline::Settings settings;
    status = cli::parse_mpi(argc, argv, settings);
    if (status < 0) {
      try {
        status = run(settings, rank, size);
      } catch (const std::bad_alloc&) {
        status =
            fail(bad_input("graphgen-mpi: out of memory: this process's share needs more than it has; run more "
                           "processes, or --max-memory for an earlier error"));
      }
    }
  }
  if (informational) return status;
  // Every process leaves with process 0's status.
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
