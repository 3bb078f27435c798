// acpx-model merge (see the header).
#include "merge_calibrations.hpp"

#include <getopt.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "collectives/model/calibration.hpp"

namespace acpx::tools {
namespace {

namespace cm = collectives::model;

int bad(const std::string &what) {
    std::fprintf(stderr, "acpx-model merge: %s\n", what.c_str());
    return 2;
}

}  // namespace

int merge_calibrations(int argc, char **argv) {
    static const char kUsage[] = "usage: acpx-model merge [--out FILE] CALIBRATION.json...";
    static const option opts[] = {
        {"out", required_argument, nullptr, 'o'}, {"help", no_argument, nullptr, 'h'}, {nullptr, 0, nullptr, 0}};
    std::string out;
    optind = 2;
    for (int c; (c = getopt_long(argc, argv, "", opts, nullptr)) != -1;) {
        if (c == 'h') return std::printf("%s\n", kUsage) < 0 ? 2 : 0;
        if (c != 'o') return bad(kUsage);
        out = optarg;
    }
    if (optind >= argc) return bad("no calibration files given");
    std::vector<cm::Calibration> runs;
    for (int i = optind; i < argc; ++i) {
        cm::Calibration c;
        std::string why;
        if (!cm::read_calibration(argv[i], &c, &why)) return bad(why);
        if (!runs.empty() && !cm::mergeable(runs.front(), c, &why))
            return bad(std::string(argv[i]) + ": not of the same runs as " + argv[optind] + ": " + why);
        runs.push_back(std::move(c));
    }
    cm::Calibration m = cm::median_calibration(runs);
    if (runs.size() > 1) m.machine += " (median of " + std::to_string(runs.size()) + " calibrations)";
    const std::string text = cm::to_json(m);
    if (out.empty()) return std::fputs(text.c_str(), stdout) < 0 ? bad("cannot write standard output") : 0;
    std::ofstream f(out);
    f << text;
    return f ? 0 : bad("--out: cannot write '" + out + "'");
}

}  // namespace acpx::tools
