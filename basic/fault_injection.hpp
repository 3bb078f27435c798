// Fault injection, for tests: makes a chosen copy or atomic fail the way a
// transport error would, so that tests can watch the failure travel (the
// GMA, what was ordered after it, the collective round that held it).
// Not part of the public API; the cost when nothing is armed is one test
// of a zero counter per GMA started.
//
// Spec (ACPX_TEST_FAIL at acp_init, or acpx_test_fail() at any time), a
// comma-separated list of
//   start:N[@R]  the Nth copy or atomic this process starts from now fails
//   data:N[@R]   the Nth copy of more than 8 bytes it starts fails (not a
//                flag or a collective's stamp: a collective's data)
//   exec:N[@R]   the Nth copy this process executes for another rank (a
//                delegated remote->remote copy) fails; its issuer sees it
//   landed:N[@R] the Nth put this process hands to the transport reports
//                failure at its completion, after its bytes left (as when
//                the connection fails under it): what was issued behind it
//                went too, and whoever ended a round on it learns late
//   sent:N[@R]   the Nth piece of a put by message handed to the
//                transport to send from the put's source (over UCX to
//                another node) counts as failed, its bytes sent all the
//                same: the put fails when the transport lets go of its
//                pieces (at once if it holds none: a socket with room)
//   piece:N[@R]  the Nth piece of a put by message to be sent from its
//                source (as sent:N, whether or not the transport would
//                hold it) cannot be handed to the transport (as on an
//                endpoint already broken): it and the pieces after it are
//                not sent
// `@R` limits the item to rank R. N counts from 1.
#pragma once

#include <acp.h>

#include <cstddef>

extern "C" {
// Arms the spec in this process. 0, or -1 (reported) for a malformed spec
// or outside acp_init .. acp_finalize.
int acpx_test_fail(const char *spec);

// Issues a remote->remote copy as acp_copy would, but without the
// issuer's checks of dst (a forged or stale GA): what the executing rank
// then does with it is under test. The source must be another rank's
// registered memory. ACP_HANDLE_NULL (reported) if it cannot be issued.
acp_handle_t acpx_test_copy_unchecked(acp_ga_t dst, acp_ga_t src, size_t size);

// Issues a signal put (layer::put_signal, signal: 8 bytes) of `n` bytes
// to another rank's `dst` that claims a registration generation the
// target never had, as a put issued before an unregistration would:
// the target's refusal is under test.
acp_handle_t acpx_test_signal_put_stale(acp_ga_t dst, const void *data, size_t n);

// As acp_copy of `n` bytes from this process's `src` to another node's
// `dst` (a put that goes as a message), claiming a registration
// generation the target never had: the target refuses it, and what was
// issued behind it (fence_instead) is under test.
acp_handle_t acpx_test_put_stale(acp_ga_t dst, const void *src, size_t n);

// How many pieces of puts by message the transport still sends from
// their sources in this process (send_from, not yet let go). 0 outside
// acp_init .. acp_finalize.
size_t acpx_test_sources_held(void);
}
