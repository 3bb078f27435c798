// The eager pool's FIFO of held chunks (middle/ring_queue.hpp): order kept
// across growth and wrap-around.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "middle/ring_queue.hpp"

using acpx::middle::RingQueue;

// Pushes and pops in uneven bunches, so the front wraps round the array
// several times and the array doubles while the live entries wrap; a
// std::deque fed the same calls says what each position must hold.
TEST(RingQueue, KeepsOrderThroughWrapsAndGrowth) {
    RingQueue<std::vector<int>> q;
    std::deque<int> want;
    int next = 0;
    for (int step = 0; step < 200; ++step) {
        const int push = step % 7 == 0 ? 40 : 5, pop = step % 5 == 0 ? 9 : 4;
        for (int i = 0; i < push; ++i, ++next) {
            q.push_back({next, -next});
            want.push_back(next);
        }
        for (int i = 0; i < pop && !want.empty(); ++i) {
            ASSERT_EQ(q.front().at(0), want.front()) << "step " << step;
            q.pop_front();
            want.pop_front();
        }
        ASSERT_EQ(q.size(), want.size());
        ASSERT_EQ(q.empty(), want.empty());
        for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(q.at(i), (std::vector<int>{want[i], -want[i]})) << i;
        if (!want.empty()) {
            ASSERT_EQ(q.back().at(0), want.back());
        }
    }
}
