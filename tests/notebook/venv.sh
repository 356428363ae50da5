# venv.sh - where test-notebook's Python packages live (sourced by tests/notebook/run.sh and
# tests/packages.sh). Like the system packages make test installs, they are installed once a
# machine, not once a checkout: in the user's cache, ${XDG_CACHE_HOME:-~/.cache}/cuda-workbook/
# notebook-venv, shared by every clone there; in $BUILD/notebook/venv where there is no home
# to write to (NOTEBOOK_VENV=DIR: another place).
notebook_venv() {
    local cache=${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}
    if [ -n "${NOTEBOOK_VENV:-}" ]; then
        echo "$NOTEBOOK_VENV"
    elif [ -n "$cache" ] && { [ -w "$cache" ] || { [ ! -e "$cache" ] && [ -w "$(dirname "$cache")" ]; }; }; then
        echo "$cache/cuda-workbook/notebook-venv"
    else
        echo "${BUILD:-build}/notebook/venv"
    fi
}
