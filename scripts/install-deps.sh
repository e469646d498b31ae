#!/bin/sh
# install-deps.sh [--with GROUP]...
#
# Checks that what sinpe needs to build and test is present: a C compiler,
# make, pkg-config, cmake (make check-install builds a CMake consumer), the
# OpenCL headers, the OpenCL ICD loader, at least one installed OpenCL
# driver (ICD), and the Check unit-test framework.  When
# everything is there it exits 0 at once, without touching apt.  Otherwise it
# installs the Debian packages with apt-get, as root or through a sudo that
# needs no password, or prints the command to run and exits 1.
#
# Optional groups, each installed only when missing:
#   --with oclgrind   the OpenCL simulator (oclgrind)
#   --with gnuplot    plotting for benchmark results (gnuplot-nox)
#   --with clang      clang and its sanitizer runtimes
#   --with peers      numpy and PyTorch for bench/peers.py (python3-numpy, and
#                     python3-torch where the archive has it: the peers
#                     script runs without torch)
#   --with mpi        Open MPI (openmpi-bin, libopenmpi-dev: mpicc, mpirun)
#                     for examples/mpi_vocab.c and make check-mpi
#   --with python     what make check-python needs for the Python package
#                     (python/): python3-venv, python3-pip, python3-setuptools
#                     and python3-wheel (the offline pip build), python3-pytest,
#                     python3-numpy, python3-pyopencl, and python3-torch where
#                     the archive has it (its tests are skipped without it)
#   --with intel      Intel's OpenCL CPU runtime, a second OpenCL implementation
#                     beside PoCL: the pinned wheels of $intel_packages
#                     (below) from PyPI, installed by pip into build/intel-ocl
#                     (about 500 MB, no root needed; python3-pip from apt
#                     when no python3 has pip), and build/icd, a folder of
#                     ICD files for OCL_ICD_VENDORS: links to the machine's
#                     own (/etc/OpenCL/vendors, so PoCL's) and one naming
#                     Intel's library by its absolute path.  Then
#                         OCL_ICD_VENDORS=$PWD/build/icd SINPE_DEVICE='Intel(R) OpenCL'
#                     runs sinpe on Intel's runtime; the machine's own
#                     vendors folder is never written.  Reinstalled when the
#                     pins change; make clean removes it.
# Several groups may be given as "--with a,b", "--with=a" or repeated flags.
# The compiler checked is $CC when set, else cc (a missing clang is
# installed along with the base packages).
set -eu

base_packages="ocl-icd-opencl-dev opencl-headers pocl-opencl-icd check pkg-config clinfo gcc make cmake"

usage() {
    echo "usage: $0 [--with oclgrind|gnuplot|clang|peers|mpi|python|intel]..." >&2
    exit "${1:-2}"
}

with_oclgrind=no
with_gnuplot=no
with_clang=no
with_peers=no
with_mpi=no
with_python=no
with_intel=no

add_groups() {
    old_ifs=$IFS
    IFS=,
    for group in $1; do
        case $group in
            oclgrind) with_oclgrind=yes ;;
            gnuplot) with_gnuplot=yes ;;
            clang) with_clang=yes ;;
            peers) with_peers=yes ;;
            mpi) with_mpi=yes ;;
            python) with_python=yes ;;
            intel) with_intel=yes ;;
            *) echo "$0: unknown group '$group'" >&2; usage ;;
        esac
    done
    IFS=$old_ifs
}

while [ "$#" -gt 0 ]; do
    case $1 in
        --with)
            [ "$#" -ge 2 ] || usage
            add_groups "$2"
            shift 2
            ;;
        --with=*)
            add_groups "${1#--with=}"
            shift
            ;;
        -h | --help) usage 0 ;;
        *) echo "$0: unknown argument '$1'" >&2; usage ;;
    esac
done

cc=${CC:-cc}

# Intel's runtime and what it loads: libintelocl.so needs libimf, libsvml,
# libirng and libintlc (intel-cmplr-lib-rt, of the same version) and libtbb
# (tbb); the others are what these wheels declare.  Every version is pinned
# and pip resolves nothing (--no-deps), so each install is the same set.
intel_packages="intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 intel-cmplr-lic-rt==2026.2.0 tbb==2023.2.0 tcmlib==1.6.0"
root=$(cd "$(dirname "$0")/.." && pwd)
intel_dir=$root/build/intel-ocl
icd_dir=$root/build/icd
system_vendors=${OPENCL_VENDOR_PATH:-/etc/OpenCL/vendors}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# Each check prints nothing and succeeds when the thing is present.
have_cc() { command -v "$cc" >/dev/null 2>&1; }
have_make() { command -v make >/dev/null 2>&1; }
have_pkg_config() { command -v pkg-config >/dev/null 2>&1; }
have_cmake() { command -v cmake >/dev/null 2>&1; }
have_check() { have_pkg_config && pkg-config --exists check; }

have_cl_header() {
    have_cc || return 1
    printf '#define CL_TARGET_OPENCL_VERSION 120\n#include <CL/cl.h>\n' >"$tmp/cl.c"
    "$cc" -E "$tmp/cl.c" >/dev/null 2>&1
}

# The unversioned libOpenCL.so, which only the loader's dev package ships.
have_cl_loader() {
    have_cc || return 1
    path=$("$cc" -print-file-name=libOpenCL.so 2>/dev/null) || return 1
    case $path in
        /*) [ -e "$path" ] ;;
        *) return 1 ;;
    esac
}

# The ICD loader reads OCL_ICD_VENDORS when set, else /etc/OpenCL/vendors.
have_icd() {
    dir=${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}
    if [ -f "$dir" ]; then
        return 0
    fi
    for icd in "$dir"/*.icd; do
        if [ -e "$icd" ]; then
            return 0
        fi
    done
    return 1
}

have_oclgrind() { command -v oclgrind >/dev/null 2>&1; }
have_gnuplot() { command -v gnuplot >/dev/null 2>&1; }

# The compiler wrapper (libopenmpi-dev) and the launcher (openmpi-bin).
have_mpi() { command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; }

# clang itself, and its sanitizer runtimes (a separate package on Debian).
have_clang() {
    command -v clang >/dev/null 2>&1 || return 1
    printf 'int main(void) { return 0; }\n' >"$tmp/rt.c"
    clang -fsanitize=address,undefined -o "$tmp/rt" "$tmp/rt.c" >/dev/null 2>&1
}

# Debian's python3-* packages serve the system interpreter, which a python3
# earlier on PATH (a virtualenv, pyenv) may hide; either one will do.
have_python_module() {
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -c "import $1" >/dev/null 2>&1; then
            return 0
        fi
    done
    return 1
}

# One interpreter that imports numpy, PyOpenCL, pytest, setuptools and wheel
# and can put pip into a venv (ensurepip and its wheels: python3-venv);
# make check-python takes the same one, the first of python3 and
# /usr/bin/python3 that imports numpy and PyOpenCL.
have_python_stack() {
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null 2>&1 &&
            "$py" -c 'import numpy, pyopencl, pytest, setuptools, wheel, ensurepip; ensurepip.version()' \
                >/dev/null 2>&1; then
            return 0
        fi
    done
    return 1
}

# A python3 that runs pip: the first of python3 and /usr/bin/python3.
pip_python() {
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -m pip --version >/dev/null 2>&1; then
            echo "$py"
            return 0
        fi
    done
    return 1
}

# The pinned set installed and checked (install_intel writes the pins
# last), and an ICD file in build/icd naming a library that exists.
have_intel() {
    [ -f "$intel_dir/sinpe-pins.txt" ] && [ "$(cat "$intel_dir/sinpe-pins.txt")" = "$intel_packages" ] &&
        [ -f "$icd_dir/intel-cpu.icd" ] && [ -f "$(cat "$icd_dir/intel-cpu.icd")" ]
}

# Installs the pinned wheels into a fresh folder beside build/intel-ocl,
# then puts it in its place, so that a failed install leaves nothing half
# done.  pip --prefix puts the wheels' libraries under PREFIX/lib, or
# PREFIX/local/lib with Debian's python3 (its posix_local scheme): the
# library is found wherever it landed.  Wheels cannot hold symbolic links,
# so libfoo.so, libfoo.so.N and libfoo.so.N.M arrive as copies (over 300 MB
# of about 800): identical copies become links to the longest name.
# libintelocl.so finds its dependencies through its RUNPATH ($ORIGIN), so
# no LD_LIBRARY_PATH is needed.
install_intel() {
    py=$(pip_python) || { echo "install-deps: no python3 with pip for --with intel" >&2; return 1; }
    new=$intel_dir.new
    rm -rf "$new"
    mkdir -p "$(dirname "$intel_dir")" || return 1
    echo "install-deps: installing $intel_packages into $intel_dir ($py -m pip)"
    # shellcheck disable=SC2086
    if ! PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --disable-pip-version-check \
        --no-warn-script-location --progress-bar off --no-deps --ignore-installed \
        --only-binary :all: --prefix "$new" $intel_packages; then
        echo "install-deps: pip could not install Intel's OpenCL runtime (PyPI unreachable?)" >&2
        rm -rf "$new"
        return 1
    fi
    find "$new" -type f -name 'lib*.so.*' | sort | while IFS= read -r f; do
        s=$f
        while s=${s%.*}; do
            case $s in */lib*.so | */lib*.so.*) ;; *) break ;; esac
            if [ -f "$s" ] && [ ! -L "$s" ] && cmp -s "$s" "$f"; then
                ln -sf "$(basename "$f")" "$s"
            fi
        done
    done
    rm -rf "$intel_dir" && mv "$new" "$intel_dir" || return 1
    lib=$(find "$intel_dir" -name libintelocl.so | head -n 1)
    if [ -z "$lib" ]; then
        echo "install-deps: no libintelocl.so in $intel_dir" >&2
        return 1
    fi
    if command -v ldd >/dev/null 2>&1 && ldd "$lib" | grep 'not found' >&2; then
        echo "install-deps: $lib cannot load: the libraries above are missing" >&2
        return 1
    fi
    # The machine's ICD files as links (they follow a driver's upgrade),
    # then Intel's by absolute path: the wheel's own .icd holds a
    # placeholder path.
    rm -rf "$icd_dir" && mkdir -p "$icd_dir" || return 1
    for icd in "$system_vendors"/*.icd; do
        [ -e "$icd" ] && ln -s "$icd" "$icd_dir/$(basename "$icd")"
    done
    echo "$lib" >"$icd_dir/intel-cpu.icd"
    if command -v clinfo >/dev/null 2>&1; then
        OCL_ICD_VENDORS=$icd_dir clinfo -l
        if ! OCL_ICD_VENDORS=$icd_dir clinfo -l | grep -q 'Intel(R) OpenCL'; then
            echo "install-deps: the ICD loader does not list Intel's platform from $icd_dir" >&2
            return 1
        fi
    fi
    # Last, so that have_intel sees an install only once it has been checked.
    echo "$intel_packages" >"$intel_dir/sinpe-pins.txt"
    echo "install-deps: Intel's OpenCL CPU runtime is in $intel_dir ($(du -sh "$intel_dir" | cut -f1));"
    echo "install-deps: use it with OCL_ICD_VENDORS=$icd_dir SINPE_DEVICE='Intel(R) OpenCL'"
}

# Fills $missing with a description of everything absent, and $packages with
# the Debian packages that provide it.
survey() {
    missing=
    packages=
    base_missing=no
    cc_package=
    if ! have_cc; then
        missing="$missing, C compiler ($cc)"
        base_missing=yes
        case $cc in
            *clang*) cc_package=" clang" ;;
        esac
    fi
    have_make || { missing="$missing, make"; base_missing=yes; }
    have_pkg_config || { missing="$missing, pkg-config"; base_missing=yes; }
    have_cmake || { missing="$missing, cmake"; base_missing=yes; }
    have_cl_header || { missing="$missing, OpenCL headers (CL/cl.h)"; base_missing=yes; }
    have_cl_loader || { missing="$missing, OpenCL ICD loader (libOpenCL.so)"; base_missing=yes; }
    have_icd || { missing="$missing, an OpenCL driver (ICD)"; base_missing=yes; }
    have_check || { missing="$missing, Check (check.pc)"; base_missing=yes; }
    if [ "$base_missing" = yes ]; then
        packages=$base_packages$cc_package
    fi
    if [ "$with_oclgrind" = yes ] && ! have_oclgrind; then
        missing="$missing, oclgrind"
        packages="$packages oclgrind"
    fi
    if [ "$with_gnuplot" = yes ] && ! have_gnuplot; then
        missing="$missing, gnuplot"
        packages="$packages gnuplot-nox"
    fi
    if [ "$with_clang" = yes ] && ! have_clang; then
        missing="$missing, clang with sanitizer runtimes"
        packages="$packages clang CLANG_RT"
    fi
    if [ "$with_peers" = yes ] && ! have_python_module numpy; then
        missing="$missing, numpy"
        packages="$packages python3-numpy"
    fi
    if [ "$with_peers" = yes ] && ! have_python_module torch && [ "$torch_unavailable" = no ]; then
        missing="$missing, PyTorch"
        packages="$packages TORCH"
    fi
    if [ "$with_python" = yes ] && ! have_python_stack; then
        missing="$missing, Python with venv, setuptools, wheel, numpy, PyOpenCL and pytest"
        packages="$packages python3-venv python3-pip python3-setuptools python3-wheel python3-pytest python3-numpy python3-pyopencl"
    fi
    if [ "$with_python" = yes ] && ! have_python_module torch && [ "$torch_unavailable" = no ]; then
        case $packages in
            *TORCH*) ;;
            *)
                missing="$missing, PyTorch"
                packages="$packages TORCH"
                ;;
        esac
    fi
    if [ "$with_mpi" = yes ] && ! have_mpi; then
        missing="$missing, Open MPI (mpicc, mpirun)"
        packages="$packages openmpi-bin libopenmpi-dev"
    fi
    if [ "$with_intel" = yes ] && ! have_intel; then
        missing="$missing, Intel's OpenCL CPU runtime (build/intel-ocl)"
        pip_python >/dev/null || packages="$packages python3-pip"
    fi
    missing=${missing#, }
    packages=${packages# }
}

# Debian 12 names the clang runtime package after the LLVM version; later
# releases add an unversioned name that follows the default clang.
clang_rt_package() {
    if apt-cache show libclang-rt-dev >/dev/null 2>&1; then
        echo libclang-rt-dev
    else
        echo libclang-rt-14-dev
    fi
}

# PyTorch is optional: where the archive lacks python3-torch it is left out,
# and not reported missing afterwards.
torch_unavailable=no
resolve_torch() {
    case $packages in
        *TORCH*)
            if apt-cache show python3-torch >/dev/null 2>&1; then
                packages=$(echo "$packages" | sed "s/TORCH/python3-torch/")
            else
                echo "install-deps: python3-torch is not in the package archive; bench/peers.py will time numpy alone, python/tests skip their PyTorch comparison"
                packages=$(echo "$packages" | sed "s/ *TORCH//")
                torch_unavailable=yes
            fi
            ;;
    esac
}

survey
if [ -z "$missing" ]; then
    echo "install-deps: all dependencies present"
    exit 0
fi
echo "install-deps: missing: $missing"

# Installs $packages with apt-get (as root or through sudo -n), or prints the
# command to run and fails.
install_packages() {
    if [ "$(id -u)" -eq 0 ]; then
        as_root=
    elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
        as_root="sudo -n"
    else
        as_root=none
    fi

    if [ "$as_root" = none ] || ! command -v apt-get >/dev/null 2>&1; then
        case $packages in
            *CLANG_RT*)
                packages=$(echo "$packages" | sed "s/CLANG_RT/$(clang_rt_package)/")
                ;;
        esac
        resolve_torch
        if [ -z "$packages" ]; then
            return 0
        fi
        echo "install-deps: cannot install packages here (not root, no password-less sudo, or no apt-get)." >&2
        echo "install-deps: on Debian or Ubuntu, run as root:" >&2
        echo "    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $packages" >&2
        exit 1
    fi

    # $as_root is empty or "sudo -n"; it must split into words.
    # shellcheck disable=SC2086
    $as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    case $packages in
        *CLANG_RT*)
            packages=$(echo "$packages" | sed "s/CLANG_RT/$(clang_rt_package)/")
            ;;
    esac
    resolve_torch
    if [ -z "$packages" ]; then
        echo "install-deps: nothing more can be installed"
        return 0
    fi
    echo "install-deps: installing $packages"
    # shellcheck disable=SC2086
    $as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends $packages
}

if [ -n "$packages" ]; then
    install_packages
fi
if [ "$with_intel" = yes ] && ! have_intel; then
    install_intel || exit 1
fi

survey
if [ -n "$missing" ]; then
    echo "install-deps: still missing after installation: $missing" >&2
    exit 1
fi
echo "install-deps: all dependencies present"
