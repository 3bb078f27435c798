// Signal puts (basic/layer.hpp, put_signal): the bytes land, the signal
// last and the puts of one rank to another in the order issued; they
// complete (acknowledged in batches, or when a wait asks); bad arguments
// are reported; a put the target refuses fails with the target's reason.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../basic/fault_injection.hpp"
#include "../../basic/layer.hpp"
#include "../mp_util.hpp"
#include "../report_util.hpp"

using namespace acpx::test;
namespace layer = acpx::basic::layer;

namespace {

constexpr size_t kSlot = 64;  // an 8-byte signal, then 56 bytes of body

uint64_t load_acquire(const unsigned char *p) {
    return __atomic_load_n(reinterpret_cast<const uint64_t *>(p), __ATOMIC_ACQUIRE);
}

// Slot `i` as put number `i` writes it: the signal i + 1, then pattern(i).
void make_slot(unsigned char *out, uint64_t i) {
    const uint64_t signal = i + 1;
    std::memcpy(out, &signal, 8);
    fill_pattern(out + 8, kSlot - 8, i);
}

}  // namespace

// Every rank puts 300 slots into its right neighbour, one signal put each
// (fewer than a batch's acknowledgement at the end: the wait asks). The
// neighbour polls the last slot's signal only: seeing it, every earlier
// slot is whole, since they were stored in the order issued.
TEST(SignalPut, SlotsLandWholeAndInTheOrderIssued) {
    constexpr uint64_t kPuts = 300;
    SharedBuffer b(kPuts * kSlot);
    const int to = (me() + 1) % np();
    acp_handle_t last = ACP_HANDLE_NULL;
    unsigned char slot[kSlot];
    for (uint64_t i = 0; i < kPuts; ++i) {
        make_slot(slot, i);
        last = layer::put_signal(b.ga[to] + i * kSlot, slot, kSlot, 8, ACP_HANDLE_NULL, "test");
        ASSERT_NE(last, ACP_HANDLE_NULL);
    }
    const unsigned char *mine = b.data.data();
    const unsigned char *final_signal = mine + (kPuts - 1) * kSlot;
    for (int spins = 0; load_acquire(final_signal) != kPuts; ++spins) {
        layer::progress();
        ASSERT_LT(spins, 50'000'000) << "the last slot never arrived";
    }
    for (uint64_t i = 0; i < kPuts; ++i) {
        EXPECT_EQ(load_acquire(mine + i * kSlot), i + 1) << "slot " << i << " not stored before the last one";
        EXPECT_EQ(first_mismatch(mine + i * kSlot + 8, kSlot - 8, i), -1) << "slot " << i;
    }
    acp_complete(last);
    EXPECT_EQ(acp_inquire(last), 0);
}

// A 16-byte signal (a collective's stamp pair) is stored after the body,
// its second word before its first: a reader that sees the first word
// sees the second and the body.
TEST(SignalPut, AReaderThatSeesTheFirstSignalWordSeesTheRest) {
    constexpr size_t kBody = 1000, kRounds = 200;
    SharedBuffer b(16 + kBody);
    const int to = (me() + 1) % np();
    std::vector<unsigned char> msg(16 + kBody);
    const unsigned char *mine = b.data.data();
    for (uint64_t round = 1; round <= kRounds; ++round) {
        const uint64_t words[2] = {round, round * 3};
        std::memcpy(msg.data(), words, 16);
        fill_pattern(msg.data() + 16, kBody, round);
        const acp_handle_t h = layer::put_signal(b.ga[to], msg.data(), msg.size(), 16, ACP_HANDLE_NULL, "test");
        ASSERT_NE(h, ACP_HANDLE_NULL);
        for (int spins = 0; load_acquire(mine) != round; ++spins) {
            layer::progress();
            ASSERT_LT(spins, 50'000'000) << "round " << round << " never arrived";
        }
        ASSERT_EQ(load_acquire(mine + 8), round * 3) << "round " << round;
        ASSERT_EQ(first_mismatch(mine + 16, kBody, round), -1) << "round " << round;
        acp_complete(h);  // the neighbour's body is rewritten next round: not before it is read
        ASSERT_EQ(acp_sync(), 0);
    }
}

TEST(SignalPut, IntoThisRanksOwnMemoryAndOrderedAfterAnotherGma) {
    SharedBuffer b(2 * kSlot);
    unsigned char slot[kSlot];
    make_slot(slot, 7);
    const acp_handle_t first = layer::put_signal(b.local(), slot, kSlot, 8, ACP_HANDLE_NULL, "test");
    ASSERT_NE(first, ACP_HANDLE_NULL);
    make_slot(slot, 8);
    const int to = (me() + 1) % np();
    const acp_handle_t second = layer::put_signal(b.ga[to] + kSlot, slot, kSlot, 1, first, "test");
    ASSERT_NE(second, ACP_HANDLE_NULL);
    acp_complete(second);
    EXPECT_EQ(acp_inquire(first), 0);
    EXPECT_EQ(acp_inquire(second), 0);
    EXPECT_EQ(load_acquire(b.data.data()), 8u);
    EXPECT_EQ(first_mismatch(b.data.data() + 8, kSlot - 8, 7), -1);
    ASSERT_EQ(acp_sync(), 0);
    EXPECT_EQ(b.data[kSlot], 9) << "a 1-byte signal";
    EXPECT_EQ(first_mismatch(b.data.data() + kSlot + 8, kSlot - 8, 8), -1);
}

TEST(SignalPut, BadArgumentsAreReportedAndNothingIsSent) {
    SharedBuffer b(256);
    const int to = (me() + 1) % np();
    unsigned char bytes[256] = {};
    acp_handle_t h = 0;
    EXPECT_REPORTS(stderr_of([&] { h = layer::put_signal(b.ga[to], bytes, 0, 1, ACP_HANDLE_NULL, "test"); }), "test",
                   "size");
    EXPECT_EQ(h, ACP_HANDLE_NULL);
    EXPECT_REPORTS(stderr_of([&] { h = layer::put_signal(b.ga[to], bytes, 70000, 8, ACP_HANDLE_NULL, "test"); }),
                   "test", "size");
    EXPECT_EQ(h, ACP_HANDLE_NULL);
    for (size_t signal : {0, 3, 12, 24}) {
        EXPECT_REPORTS(stderr_of([&] { h = layer::put_signal(b.ga[to], bytes, 16, signal, ACP_HANDLE_NULL, "test"); }),
                       "test", "signal");
        EXPECT_EQ(h, ACP_HANDLE_NULL) << signal;
    }
    EXPECT_REPORTS(stderr_of([&] { h = layer::put_signal(b.ga[to] + 4, bytes, 16, 8, ACP_HANDLE_NULL, "test"); }),
                   "test", "dst");
    EXPECT_EQ(h, ACP_HANDLE_NULL) << "a misaligned 8-byte signal";
    EXPECT_REPORTS(stderr_of([&] { h = layer::put_signal(b.ga[to] + 200, bytes, 64, 8, ACP_HANDLE_NULL, "test"); }),
                   "test", "dst");
    EXPECT_EQ(h, ACP_HANDLE_NULL) << "past the registration";
    EXPECT_REPORTS(stderr_of([&] { h = layer::put_signal(b.ga[to], bytes, 8, 8, 1'000'000'000, "test"); }), "test",
                   "order");
    EXPECT_EQ(h, ACP_HANDLE_NULL);
    ASSERT_EQ(acp_sync(), 0);
    EXPECT_EQ(first_not(b.data.data(), b.data.size(), 0), -1) << "a refused call wrote";
}

// The target checks each signal put against its own registration: one
// that claims a generation it never had is refused there, its GMA fails
// at the issuer with the target's reason, and nothing is written.
TEST(SignalPut, APutTheTargetRefusesFailsWithItsReason) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    SharedBuffer b(64);
    const int to = (me() + 1) % np();
    unsigned char bytes[16] = {1, 2, 3};
    acp_handle_t h = ACP_HANDLE_NULL, after = ACP_HANDLE_NULL;
    const std::string err = stderr_of([&] {
        acp_sync();  // the left neighbour's refused put comes after this rank captures stderr
        h = acpx_test_signal_put_stale(b.ga[to], bytes, sizeof bytes);
        after = layer::put_signal(b.ga[to] + 32, bytes, sizeof bytes, 8, ACP_HANDLE_NULL, "test");
        acp_complete(after);
        acp_sync();  // the refusal this rank's left neighbour caused is printed here too
    });
    ASSERT_NE(h, ACP_HANDLE_NULL);
    EXPECT_EQ(acp_inquire(h), -1);
    EXPECT_EQ(acp_inquire(after), 0) << "a refusal does not poison the next signal put";
    EXPECT_NE(err.find("GMA " + std::to_string(h) + ": signal put of 16 bytes from rank " + std::to_string(me()) +
                       " to rank " + std::to_string(to) + " failed: rank " + std::to_string(to) +
                       " refused it: its destination was unregistered since the issuer looked"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("signal put: from rank " + std::to_string((me() + np() - 1) % np()) + ": number "),
              std::string::npos)
        << "the target's own line: " << err;
    EXPECT_EQ(first_not(b.data.data(), 32, 0), -1) << "the refused put wrote";
    EXPECT_EQ(b.data[32], 1);
}

// A signal put whose transport reports failure after the bytes left
// (fault injection: landed) fails, as a put does.
TEST(SignalPut, AFailureAtCompletionFailsTheGma) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    SharedBuffer b(64);
    const int to = (me() + 1) % np();
    unsigned char bytes[16] = {};
    ASSERT_EQ(acpx_test_fail("landed:1"), 0);
    acp_handle_t h = ACP_HANDLE_NULL;
    const std::string err = stderr_of([&] {
        h = layer::put_signal(b.ga[to], bytes, sizeof bytes, 8, ACP_HANDLE_NULL, "test");
        acp_complete(h);
    });
    EXPECT_EQ(acp_inquire(h), -1);
    EXPECT_NE(err.find("signal put of 16 bytes"), std::string::npos) << err;
    ASSERT_EQ(acp_sync(), 0);
}

// A put sent as a message that its target refuses, and a flag put issued
// behind it at once (ordered after it, fence_instead): the target refuses
// the flag too, so a flag never says that refused bytes arrived; both
// GMAs fail, each once. 16 bytes, and 100,000 (over UCX, pieces of 32 KiB:
// every piece is refused, the GMA fails once). Each rank writes to the
// rank half the job away (on the other host of the two-host bed); on one
// node there is no such put.
TEST(SignalPut, AFlagIssuedBehindARefusedPutIsRefusedToo) {
    const int to = (me() + np() / 2) % np(), from = (me() + np() - np() / 2) % np();
    if (np() % 2 || layer::node_id(to) == layer::node_id(me())) GTEST_SKIP() << "needs an even job over two nodes";
    constexpr size_t kBig = 100000;
    SharedBuffer b(kBig + 64);
    std::vector<unsigned char> bytes(kBig, 7);
    acp_atkey_t k = acp_register_memory(bytes.data(), bytes.size(), 0);
    const acp_ga_t src = acp_query_ga(k, bytes.data());
    for (const size_t n : {size_t{16}, kBig}) {
        acp_handle_t data = ACP_HANDLE_NULL, flag = ACP_HANDLE_NULL;
        const std::string err = stderr_of([&] {
            acp_sync();
            data = acpx_test_put_stale(b.ga[to], bytes.data(), n);
            if (data != ACP_HANDLE_NULL) flag = acp_copy(b.ga[to] + kBig + 32, src, 8, data);
            acp_complete(ACP_HANDLE_ALL);
            acp_sync();
        });
        if (data == ACP_HANDLE_NULL && n == kBig) {  // this transport puts that much by RMA
            EXPECT_NE(err.find("a put small enough to go as a message"), std::string::npos) << err;
            continue;
        }
        ASSERT_NE(data, ACP_HANDLE_NULL) << n << " bytes: " << err;
        ASSERT_NE(flag, ACP_HANDLE_NULL) << n << " bytes";
        EXPECT_EQ(acp_inquire(data), -1) << n << " bytes";
        EXPECT_EQ(acp_inquire(flag), -1) << n << " bytes";
        EXPECT_EQ(first_not(b.data.data(), b.data.size(), 0), -1)
            << n << " bytes: rank " << from << "'s refused put or its flag wrote";
        EXPECT_NE(err.find("ordered after signal put number"), std::string::npos) << err;
        const std::string failed = "GMA " + std::to_string(data) + ": ";
        EXPECT_EQ(err.find(failed, err.find(failed) + 1), std::string::npos) << "reported once: " << err;
    }
    acp_sync();
    EXPECT_EQ(acp_unregister_memory(k), 0);
}

// A held put (layer::put_held) stores only its head at the target, the
// reference to the body in the head's last word; the target reads the
// body through held_bytes and frees it with release_held (a reference
// it never gave out, or gave back already, is ignored). Into the right
// neighbour (another node in the two-host suites) and into this rank's
// own memory. Bodies left unreleased go with the registration (the
// sanitizer build's leak check sees any that do not).
TEST(SignalPut, AHeldPutStoresItsHeadAndHoldsItsBody) {
    constexpr size_t kBody = 40000, kHead = 24;  // stamps (16, the signal), then the reference
    SharedBuffer b(256);
    const int to = (me() + 1) % np();
    std::vector<unsigned char> body(kBody);
    for (const int target : {to, me()}) {
        const size_t at = target == me() ? 128 : 0;
        fill_pattern(body.data(), kBody, 1000 + static_cast<uint64_t>(me()) * 10 + (target == me()));
        const uint64_t head[3] = {7, 8, 0};
        const acp_handle_t h =
            layer::put_held(b.ga[target] + at, head, sizeof head, body.data(), kBody, 16, ACP_HANDLE_NULL, "test");
        ASSERT_NE(h, ACP_HANDLE_NULL);
        acp_complete(h);
        EXPECT_EQ(acp_inquire(h), 0);
    }
    ASSERT_EQ(acp_sync(), 0);  // the left neighbour's put is stored here
    const int from = (me() + np() - 1) % np();
    for (const size_t at : {size_t{0}, size_t{128}}) {
        const unsigned char *slot = b.data.data() + at;
        const uint64_t sender = at == 0 ? static_cast<uint64_t>(from) : static_cast<uint64_t>(me());
        EXPECT_EQ(load_acquire(slot), 7u) << at;
        EXPECT_EQ(load_acquire(slot + 8), 8u) << at;
        const uint64_t ref = load_acquire(slot + 16);
        ASSERT_NE(ref, 0u) << at << ": no reference to the body";
        EXPECT_EQ(layer::held_bytes(ref, kBody + 1), nullptr) << at << ": longer than the body";
        EXPECT_EQ(first_mismatch(reinterpret_cast<const unsigned char *>(layer::held_bytes(ref, kBody)), kBody,
                                 1000 + sender * 10 + (at == 128)),
                  -1)
            << at;
        // (Up to offset 64, where the neighbour's next put may have landed.)
        EXPECT_EQ(first_not(slot + kHead, 40, 0), -1) << at << ": the body was written into the registration";
        layer::release_held(ref);
        EXPECT_EQ(layer::held_bytes(ref, 1), nullptr) << at << ": released";
        layer::release_held(ref);  // twice: ignored
    }
    EXPECT_EQ(layer::held_bytes(0x1234, 1), nullptr) << "never given out";
    layer::release_held(0x1234);  // never given out: ignored
    // One more, never released: freed with the registration.
    const uint64_t head[3] = {9, 9, 0};
    const acp_handle_t h =
        layer::put_held(b.ga[to] + 64, head, sizeof head, body.data(), 100, 16, ACP_HANDLE_NULL, "test");
    ASSERT_NE(h, ACP_HANDLE_NULL);
    acp_complete(h);
    // Bad heads: not whole words past the signal, or past the registration.
    acp_handle_t bad = 0;
    EXPECT_REPORTS(
        stderr_of([&] { bad = layer::put_held(b.ga[to], head, 16, body.data(), 100, 16, ACP_HANDLE_NULL, "test"); }),
        "test", "head");
    EXPECT_EQ(bad, ACP_HANDLE_NULL) << "no room for the reference";
    EXPECT_REPORTS(stderr_of([&] {
                       bad = layer::put_held(b.ga[to] + 240, head, sizeof head, body.data(), 100, 16, ACP_HANDLE_NULL,
                                             "test");
                   }),
                   "test", "dst");
    EXPECT_EQ(bad, ACP_HANDLE_NULL) << "the head past the registration";
}

// A put to another node goes as messages sent from its source (pieces of
// 8 KiB up: Transport::send_from); layer::sources_free says when the
// source may change, which may be before the put completes. Changed then,
// at once, what lands is still what it held. 4 MiB, the largest put by
// message: more than the transport can take in one call, so some pieces
// are still read from the source after acp_copy returns. Two hosts only
// (on one node puts are plain copies or RMA).
TEST(PutByMessage, ItsSourceMayChangeOnceFreeAndWhatLandsIsWhatItHeld) {
    const char *nodes = std::getenv("ACPX_TEST_NODES");
    if (np() < 2 || np() % 2 || !nodes || std::string(nodes) != "2")
        GTEST_SKIP() << "two hosts, half the ranks on each";
    constexpr size_t kBytes = size_t{4} << 20;
    SharedBuffer dst(kBytes);
    std::vector<unsigned char> src(kBytes);
    const acp_atkey_t key = acp_register_memory(src.data(), kBytes, 0);
    ASSERT_NE(key, ACP_ATKEY_NULL);
    const acp_ga_t src_ga = acp_query_ga(key, src.data());
    const int half = np() / 2, to = (me() + half) % np(), from = (me() + np() - half) % np();
    for (uint64_t round = 1; round <= 10; ++round) {
        fill_pattern(src.data(), kBytes, round * 100 + static_cast<uint64_t>(me()));
        const acp_handle_t h = acp_copy(dst.ga[to], src_ga, kBytes, ACP_HANDLE_NULL);
        ASSERT_NE(h, ACP_HANDLE_NULL);
        for (int k = 0; !layer::sources_free(h, h); ++k) {
            ASSERT_LT(k, 10000000) << "round " << round << ": the source never came free";
            layer::progress();
        }
        std::memset(src.data(), 0xee, kBytes);
        acp_complete(h);
        ASSERT_EQ(acp_inquire(h), 0) << "round " << round;
        ASSERT_EQ(acp_sync(), 0);
        ASSERT_EQ(first_mismatch(dst.data.data(), kBytes, round * 100 + static_cast<uint64_t>(from)), -1)
            << "round " << round << ": from rank " << from;
        ASSERT_EQ(acp_sync(), 0);
    }
    EXPECT_EQ(acp_unregister_memory(key), 0);
}

// A piece of a put by message whose send fails (fault injection: sent:1,
// as when the connection fails under it), or that cannot be handed to
// the transport (piece:40, as on an endpoint already broken, the 39
// before it handed over), fails the put once, naming why, and only once
// the transport has let go of every piece: when acp_complete returns, no
// piece is still sent from the source, which the program may then free
// (the sanitizer build would see a late read). The next put lands whole.
// 16 MiB: 128 pieces over UCX, many held by the transport at once. Two
// hosts, UCX only (libfabric copies pieces out).
TEST(PutByMessage, AFailedPieceFailsThePutOnceTheSourceIsLetGo) {
    const char *nodes = std::getenv("ACPX_TEST_NODES"), *transport = std::getenv("ACP_TRANSPORT");
    if (np() < 2 || np() % 2 || !nodes || std::string(nodes) != "2")
        GTEST_SKIP() << "two hosts, half the ranks on each";
    if (transport && std::string(transport) == "ofi") GTEST_SKIP() << "no piece is sent from its source";
    constexpr size_t kBytes = size_t{16} << 20;
    SharedBuffer dst(kBytes);
    const int half = np() / 2, to = (me() + half) % np(), from = (me() + np() - half) % np();
    const struct {
        const char *spec, *why;
    } faults[] = {{"sent:1", "fault injected at a piece's send"},
                  {"piece:40", "fault injected at a piece's handover"},
                  {nullptr, nullptr}};
    for (const auto &f : faults) {
        const bool fail = f.spec != nullptr;
        const uint64_t seed = (fail ? 500 : 600) + static_cast<uint64_t>(me());
        auto src = std::make_unique<std::vector<unsigned char>>(kBytes);
        fill_pattern(src->data(), kBytes, seed);
        const acp_atkey_t key = acp_register_memory(src->data(), kBytes, 0);
        ASSERT_NE(key, ACP_ATKEY_NULL);
        if (fail) {
            ASSERT_EQ(acpx_test_fail(f.spec), 0);
        }
        acp_handle_t h = ACP_HANDLE_NULL;
        const std::string err = stderr_of([&] {
            h = acp_copy(dst.ga[to], acp_query_ga(key, src->data()), kBytes, ACP_HANDLE_NULL);
            acp_complete(h);
        });
        ASSERT_NE(h, ACP_HANDLE_NULL) << err;
        EXPECT_EQ(acpx_test_sources_held(), 0u)
            << (fail ? f.spec : "no fault") << ": acp_complete returned while the transport still sent from the source";
        EXPECT_EQ(acp_unregister_memory(key), 0);
        src.reset();
        acpx_test_fail("sent:1000000000,piece:1000000000");  // disarm what was not used
        if (fail) {
            EXPECT_EQ(acp_inquire(h), -1) << f.spec;
            const std::string line = "GMA " + std::to_string(h) + ": put of " + std::to_string(kBytes) +
                                     " bytes from rank " + std::to_string(me()) + " to rank " + std::to_string(to) +
                                     " failed: " + f.why;
            EXPECT_NE(err.find(line), std::string::npos) << err;
            EXPECT_EQ(err.find(line, err.find(line) + 1), std::string::npos) << "reported once: " << err;
            ASSERT_EQ(acp_sync(), 0);
            continue;
        }
        EXPECT_EQ(acp_inquire(h), 0) << err;
        ASSERT_EQ(acp_sync(), 0);
        EXPECT_EQ(first_mismatch(dst.data.data(), kBytes, 600 + static_cast<uint64_t>(from)), -1)
            << "the put after the failed one, from rank " << from;
        ASSERT_EQ(acp_sync(), 0);
    }
}

// A put by message to another node goes in pieces (the transport's
// message_piece: 128 KiB over UCX where acpx sizes its TCP receive
// segments, 32 KiB where the user set UCX_TCP_RX_SEG_SIZE; the suite
// runs both). Puts of one byte under, at and over each of those sizes and
// several pieces with a tail land whole, at odd offsets, and nothing
// around them changes.
TEST(PutByMessage, PutsAroundAPieceLandWholeAndAlone) {
    const char *nodes = std::getenv("ACPX_TEST_NODES");
    if (np() < 2 || np() % 2 || !nodes || std::string(nodes) != "2")
        GTEST_SKIP() << "two hosts, half the ranks on each";
    // The last: over UCX's old 4 MiB cap for a put by message.
    const size_t sizes[] = {8191,   8192,   32767,  32768,          32769,       131071,
                            131072, 131073, 262144, 3 * 131072 + 5, 1048576 + 3, (5 << 20) + 7};
    constexpr size_t kAt = 3, kFrom = 5, kRoom = 6 << 20;  // odd offsets at both ends
    SharedBuffer dst(kRoom, 0xa5);
    std::vector<unsigned char> src(kRoom);
    const acp_atkey_t key = acp_register_memory(src.data(), kRoom, 0);
    ASSERT_NE(key, ACP_ATKEY_NULL);
    const acp_ga_t src_ga = acp_query_ga(key, src.data());
    const int half = np() / 2, to = (me() + half) % np(), from = (me() + np() - half) % np();
    for (const size_t n : sizes) {
        const uint64_t seed = n * 16 + static_cast<uint64_t>(me());
        fill_pattern(src.data() + kFrom, n, seed);
        const acp_handle_t h = acp_copy(dst.ga[to] + kAt, src_ga + kFrom, n, ACP_HANDLE_NULL);
        ASSERT_NE(h, ACP_HANDLE_NULL) << n << " bytes";
        acp_complete(h);
        ASSERT_EQ(acp_inquire(h), 0) << n << " bytes";
        ASSERT_EQ(acp_sync(), 0);
        const unsigned char *got = dst.data.data();
        EXPECT_EQ(first_not(got, kAt, 0xa5), -1) << n << " bytes: written before the target";
        EXPECT_EQ(first_mismatch(got + kAt, n, n * 16 + static_cast<uint64_t>(from)), -1)
            << n << " bytes from rank " << from;
        EXPECT_EQ(first_not(got + kAt + n, kRoom - kAt - n, 0xa5), -1) << n << " bytes: written past the end";
        std::memset(dst.data.data(), 0xa5, kRoom);
        ASSERT_EQ(acp_sync(), 0);
    }
    EXPECT_EQ(acp_unregister_memory(key), 0);
}
