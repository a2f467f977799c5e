// The timeline layer (Profile::timeline): how long each sample lasted.
#pragma once

#include <vector>

#include "graphgen/profile.h"

namespace graphgen {

/// Each timeline sample's duration in seconds, in the timeline's order: its
/// own, or for a sample of unknown length (perf's point samples) the time
/// until the next sample of its track, unless that is more than twice the
/// track's median interval between such samples (the thread was off the
/// CPU, or the recording paused): then the median. The last sample of a
/// track lasts the median; a track of one sample, 0.
std::vector<double> sample_durations(const Profile& p);

/// Makes the tracks of one (pid, tid) one track, named as the first of
/// them: the parts of one recording read apart (perf's two halves), where a
/// thread renamed by exec in the second half is still the same thread.
void join_threads(Profile& p);

/// Gives every sample of unknown length its duration (sample_durations),
/// so that removing samples (filters) leaves the others' unchanged.
void fix_durations(Profile& p);

}  // namespace graphgen
