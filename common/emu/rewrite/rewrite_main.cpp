/*
 * rewrite_main.cpp -- emu-rewrite, the command that turns a .cu file into
 * C++ for the CPU emulator.
 *
 *   emu-rewrite [-I DIR]... [-MF DEPFILE -MT TARGET] -o OUT.cpp IN.cu
 *
 * Headers the file includes with quotes ("x.cuh"), found next to the
 * including file or in a -I directory, are rewritten too (they may hold
 * kernels or __shared__ variables): into OUT.cpp.inc/<their absolute path>,
 * and the #include is pointed at that copy. -MF writes a make rule naming
 * every file read, so the object is rebuilt when any of them changes.
 * Exits 1 with "file:line: error: ..." on a construct it cannot rewrite.
 *
 *   emu-rewrite --figures PTXAS_LOG PTX CUBIN -o OUT
 *
 * writes OUT: the C++ that tells the runtime what nvcc's build of a file uses per kernel
 * (figures.h), from that build's ptxas log, PTX and cubin (emu-nvcc appends it to the
 * rewritten file); empty when they name no kernel. A missing PTX or cubin reads as empty.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "figures.h"
#include "rewrite.h"

namespace {

struct Options {
    std::vector<std::string> include_dirs; /* -I: where quoted includes are also looked for */
    std::string output;                    /* -o: the rewritten main file */
    std::string input;                     /* the .cu file */
    std::string depfile;                   /* -MF: make dependencies, or "" */
    std::string target;                    /* -MT: the rule's target */
};

/* Reads the file at PATH into *TEXT; false if it cannot be read. */
bool read_file(const std::string &path, std::string *text)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::ostringstream buf;
    buf << in.rdbuf();
    *text = buf.str();
    return true;
}

/* Writes through a temporary file and a rename, so a parallel build never
 * reads half a file. */
bool write_file(const std::string &path, const std::string &text)
{
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out || !(out << text))
            return false;
    }
    return rename(tmp.c_str(), path.c_str()) == 0;
}

/* Creates the directories leading to the file PATH. */
bool make_dirs(const std::string &path)
{
    for (size_t slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
        std::string dir = path.substr(0, slash);
        if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
            return false;
    }
    return true;
}

/* PATH made absolute (and canonical, when it exists). */
std::string absolute(const std::string &path)
{
    char buf[PATH_MAX];
    if (realpath(path.c_str(), buf) != nullptr)
        return buf;
    if (!path.empty() && path[0] == '/')
        return path;
    char cwd[PATH_MAX];
    return getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : path;
}

/* The directory part of PATH ("." if it has none). */
std::string dir_of(const std::string &path)
{
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

/* PATH as it should appear in #line: relative to the working directory when
 * it lies inside it (the build runs from the repository root). */
std::string display(const std::string &abs_path)
{
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == nullptr)
        return abs_path;
    std::string prefix = std::string(cwd) + "/";
    return abs_path.compare(0, prefix.size(), prefix) == 0 ? abs_path.substr(prefix.size())
                                                           : abs_path;
}

class Tree {
  public:
    explicit Tree(const Options &o) : opt_(o), inc_root_(absolute(o.output) + ".inc") {}

    /* Rewrites the main file and, through it, every header it reaches. */
    bool run()
    {
        std::string text;
        std::string abs_in = absolute(opt_.input);
        if (!read_file(opt_.input, &text)) {
            fprintf(stderr, "emu-rewrite: error: cannot read %s\n", opt_.input.c_str());
            return false;
        }
        read_.push_back(abs_in);
        std::string out;
        if (!rewrite(text, abs_in, true, &out))
            return false;
        if (!make_dirs(opt_.output) || !write_file(opt_.output, out)) {
            fprintf(stderr, "emu-rewrite: error: cannot write %s\n", opt_.output.c_str());
            return false;
        }
        return opt_.depfile.empty() || write_deps();
    }

  private:
    bool rewrite(const std::string &text, const std::string &abs_path, bool main_file,
                 std::string *out)
    {
        const std::string dir = dir_of(abs_path);
        bool ok = true;
        auto mapper = [&](const std::string &name) -> std::string {
            std::string found = resolve(name, dir);
            if (found.empty() || !ok)
                return "";
            std::string copy = header(found, &ok);
            return ok ? copy : "";
        };
        std::string error;
        if (!emu_rewrite::rewrite_source(text, display(abs_path), main_file, mapper, out, &error)) {
            fprintf(stderr, "%s\n", error.c_str());
            return false;
        }
        return ok;
    }

    std::string resolve(const std::string &name, const std::string &dir) const
    {
        struct stat st;
        std::vector<std::string> candidates;
        if (!name.empty() && name[0] == '/')
            candidates.push_back(name);
        else {
            candidates.push_back(dir + "/" + name);
            for (const std::string &d : opt_.include_dirs)
                candidates.push_back(d + "/" + name);
        }
        for (const std::string &c : candidates)
            if (stat(c.c_str(), &st) == 0 && S_ISREG(st.st_mode))
                return absolute(c);
        return "";
    }

    /* The path of the rewritten copy of the header at ABS_PATH, made once. */
    std::string header(const std::string &abs_path, bool *ok)
    {
        auto it = copies_.find(abs_path);
        if (it != copies_.end())
            return it->second;
        std::string copy = inc_root_ + abs_path;
        copies_[abs_path] = copy; /* before recursing: include cycles end here */
        read_.push_back(abs_path);
        std::string text, out;
        if (!read_file(abs_path, &text)) {
            fprintf(stderr, "emu-rewrite: error: cannot read %s\n", abs_path.c_str());
            *ok = false;
            return copy;
        }
        if (!rewrite(text, abs_path, false, &out) || !make_dirs(copy) || !write_file(copy, out))
            *ok = false;
        return copy;
    }

    bool write_deps() const
    {
        std::string rule = opt_.target + ":";
        for (const std::string &f : read_)
            rule += " \\\n  " + f;
        rule += "\n";
        for (size_t i = 1; i < read_.size(); ++i)
            rule += "\n" + read_[i] + ":\n";
        if (!make_dirs(opt_.depfile) || !write_file(opt_.depfile, rule)) {
            fprintf(stderr, "emu-rewrite: error: cannot write %s\n", opt_.depfile.c_str());
            return false;
        }
        return true;
    }

    const Options &opt_;
    const std::string inc_root_;               /* where rewritten headers go */
    std::map<std::string, std::string> copies_; /* header -> its rewritten copy */
    std::vector<std::string> read_;            /* every file read, main first */
};

/* Prints the command line to stderr. */
void usage()
{
    fprintf(stderr, "usage: emu-rewrite [-I DIR]... [-MF DEPFILE -MT TARGET] -o OUT.cpp IN.cu\n"
                    "       emu-rewrite --figures PTXAS_LOG PTX CUBIN -o OUT\n");
}

/* --figures: the table of what nvcc's build uses per kernel (figures.h), written to OUT. */
int write_figures(const std::string &log_path, const std::string &ptx_path,
                  const std::string &cubin_path, const std::string &out)
{
    std::string log, ptx, cubin;
    if (!read_file(log_path, &log)) {
        fprintf(stderr, "emu-rewrite: error: cannot read %s\n", log_path.c_str());
        return 1;
    }
    read_file(ptx_path, &ptx);
    read_file(cubin_path, &cubin);
    const std::string table = emu_rewrite::figures_table(emu_rewrite::parse_figures(log, ptx),
                                                         emu_rewrite::cubin_constant_bytes(cubin));
    if (!make_dirs(out) || !write_file(out, table)) {
        fprintf(stderr, "emu-rewrite: error: cannot write %s\n", out.c_str());
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 7 && std::string(argv[1]) == "--figures" && std::string(argv[5]) == "-o")
        return write_figures(argv[2], argv[3], argv[4], argv[6]);
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](std::string *dst) {
            if (i + 1 >= argc)
                return false;
            *dst = argv[++i];
            return true;
        };
        bool ok = true;
        if (a == "-o")
            ok = value(&o.output);
        else if (a == "-MF")
            ok = value(&o.depfile);
        else if (a == "-MT")
            ok = value(&o.target);
        else if (a == "-I") {
            std::string d;
            ok = value(&d);
            o.include_dirs.push_back(d);
        } else if (a.compare(0, 2, "-I") == 0)
            o.include_dirs.push_back(a.substr(2));
        else if (!a.empty() && a[0] != '-' && o.input.empty())
            o.input = a;
        else
            ok = false;
        if (!ok) {
            usage();
            return 2;
        }
    }
    if (o.input.empty() || o.output.empty() || (!o.depfile.empty() && o.target.empty())) {
        usage();
        return 2;
    }
    return Tree(o).run() ? 0 : 1;
}
