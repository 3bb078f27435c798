#include "simgrid_platform.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

namespace acpx::tools {
namespace {

namespace cm = acpx::collectives::model;

std::string link_name(const cm::Link &l) {
    return "l" + std::to_string(l.node) + "_" + std::to_string(l.dim) + (l.dir > 0 ? "+" : "-");
}

std::string num(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.9g", v);
    return b;
}

// One argument for sh -c, quoted.
std::string quoted(const std::string &s) {
    std::string q = "'";
    for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

std::string find_kernel(const std::string &name, std::string *why) {
#ifdef ACPX_SMPIRUN
    if (!*ACPX_SMPIRUN) return *why = "smpirun was not found at configure (Debian: libsimgrid-dev)", "";
#endif
    if (const char *env = std::getenv("ACPX_SIMGRID_KERNELS")) {
        const std::string path = std::string(env) + "/" + name;
        if (access(path.c_str(), X_OK) == 0) return path;
        return *why = "ACPX_SIMGRID_KERNELS: no executable " + path, "";
    }
#ifdef ACPX_KERNELS_BUILT
    for (const std::string dir : {ACPX_KERNELS_BUILT, ACPX_KERNELS_INSTALLED})
        if (access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
#endif
    return *why = name + " for smpirun was not built (smpicc: Debian's libsimgrid-dev)", "";
}

bool run_kernel(const std::string &kernel, const std::string &dir, size_t np, const std::vector<std::string> &args,
                const SimgridLinks &links, double *seconds, std::string *why) {
#ifdef ACPX_SMPIRUN
    std::string cmd = quoted(ACPX_SMPIRUN);
#else
    std::string cmd = "smpirun";
#endif
    cmd += " -np " + std::to_string(np) + " -platform " + quoted(dir + "/platform.xml") + " -hostfile " +
           quoted(dir + "/hostfile");
    for (const std::string &c : smpi_config(links)) cmd += " " + quoted(c);
    cmd += " " + quoted(kernel);
    for (const std::string &a : args) cmd += " " + quoted(a);
    cmd += " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    if (!p) return *why = "cannot start smpirun", false;
    char line[4096];
    std::string last;
    bool found = false;
    while (std::fgets(line, sizeof line, p)) {
        if (std::sscanf(line, "seconds %lf", seconds) == 1) found = true;
        if (line[0] != '[') last = line;  // SimGrid's own log lines begin with the time
    }
    const int st = pclose(p);
    if (st != 0 || !found) {
        while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
        return *why = "smpirun failed (status " + std::to_string(st) + "): " + last, false;
    }
    return true;
}

bool write_simgrid_platform(const cm::Topology &t, const std::vector<uint32_t> &map, const SimgridLinks &links,
                            const std::string &dir, std::string *why) {
    const std::set<uint32_t> hosts(map.begin(), map.end());
    std::ofstream p(dir + "/platform.xml"), h(dir + "/hostfile");
    if (!p || !h) return *why = dir + ": cannot write platform.xml and hostfile", false;
    p << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<!-- " << t.describe() << ": a host per node a rank runs on, a link per direction (acpx-model) -->\n"
      << "<platform version=\"4.1\">\n<zone id=\"net\" routing=\"Full\">\n";
    for (const uint32_t n : hosts) p << "  <host id=\"n" << n << "\" speed=\"1Gf\"/>\n";
    for (const uint32_t n : hosts) {
        if (links.ports)
            p << "  <link id=\"up" << n << "\" bandwidth=\"" << num(links.bandwidth) << "Bps\" latency=\""
              << num(links.small_alpha) << "s\"/>\n  <link id=\"down" << n << "\" bandwidth=\"" << num(links.bandwidth)
              << "Bps\" latency=\"0s\"/>\n";
        else
            p << "  <link id=\"up" << n << "\" bandwidth=\"" << num(links.bandwidth * 1000) << "Bps\" latency=\""
              << num(links.small_alpha) << "s\" sharing_policy=\"FATPIPE\"/>\n";
    }
    // Each route once: its links are declared as they first appear, and
    // the routes, which must follow every declaration, are kept till then.
    std::set<std::string> declared;
    std::string routes;
    for (const uint32_t a : hosts)
        for (const uint32_t b : hosts) {
            if (a == b) continue;
            routes += "  <route src=\"n" + std::to_string(a) + "\" dst=\"n" + std::to_string(b) +
                      "\" symmetrical=\"NO\"><link_ctn id=\"up" + std::to_string(a) + "\"/>";
            for (const cm::Link &l : cm::route(t, a, b)) {
                const std::string name = link_name(l);
                if (declared.insert(name).second)
                    p << "  <link id=\"" << name << "\" bandwidth=\"" << num(links.bandwidth)
                      << "Bps\" latency=\"0s\"/>\n";
                routes += "<link_ctn id=\"" + name + "\"/>";
            }
            if (links.ports) routes += "<link_ctn id=\"down" + std::to_string(b) + "\"/>";
            routes += "</route>\n";
        }
    p << routes;
    p << "</zone>\n</platform>\n";
    for (const uint32_t n : map) h << "n" << n << "\n";
    if (!p.flush() || !h.flush()) return *why = dir + ": cannot write platform.xml and hostfile", false;
    return true;
}

std::vector<std::string> smpi_config(const SimgridLinks &links) {
    // SMPI's network model is CM02 with a factor on each message's
    // bandwidth and latency by its size: none on bandwidth, and on latency
    // alpha / small_alpha from 64 bytes (an MPI_Barrier's messages are
    // 9-16 bytes; the patterns' blocks at least 64).
    return {"--cfg=network/model:SMPI", "--cfg=network/crosstraffic:0", "--cfg=smpi/bw-factor:0:1",
            "--cfg=smpi/lat-factor:64:" + num(links.alpha / links.small_alpha) + ";0:1",
            "--cfg=smpi/simulate-computation:0"};
}

}  // namespace acpx::tools
