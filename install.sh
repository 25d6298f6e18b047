#!/usr/bin/env bash
# Installs the Tigris & Euphrates table companion.
#
#   sudo ./install.sh              Raspberry Pi OS (Bookworm or Trixie): apt packages, the user
#                                  `companion`, /opt/companion, /etc/companion/config.toml,
#                                  /var/lib/companion and the kiosk service on tty1, enabled.
#   sudo ./install.sh --desktop    the same, but started in the desktop session instead of on tty1.
#   ./install.sh --dev             a development machine: a local .venv from wheels.
#   --dry-run                      print what would be done and change nothing.
#   sudo ./install.sh --uninstall [--purge]
#                                  remove the program; game records, calibration and the settings
#                                  stay unless --purge.
#
# Running it again changes only what is missing or out of date, and says so.
# The functions can be tested by sourcing this file: nothing runs until main is called.
set -euo pipefail

SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A prefix for every system path, for tests in a scratch directory; empty on a real machine.
ROOT="${ROOT:-}"
PREFIX=/opt/companion
CONFIG_DIR=/etc/companion
STATE_DIR=/var/lib/companion
UNIT_DIR=/etc/systemd/system
AUTOSTART=/etc/xdg/autostart/companion.desktop
SERVICE=companion.service
SERVICE_USER="${SERVICE_USER:-companion}"
COMMAND_LINK=/usr/local/bin/companion
DEVICE_GROUPS=(video render input gpio)
# apt's Python: its numpy, OpenCV and pygame are the ones the Pi's libraries were built against.
SYSTEM_PYTHON="${SYSTEM_PYTHON:-/usr/bin/python3}"
DEV_PYTHON="${DEV_PYTHON:-python3}"

# Enabling works offline on the unit files (in a chroot too); --root points it at a scratch root.
SYSTEMCTL=(systemctl ${ROOT:+"--root=$ROOT"})

DRY_RUN=0
CHANGED=0
# Set when the program or the unit changed: a running companion must pick them up.
RESTART=0

say() { printf '%s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
    printf 'install.sh: %s\n' "$*" >&2
    exit 1
}

# Every change goes through here, so --dry-run shows it and the summary knows something changed.
run() {
    CHANGED=1
    if ((DRY_RUN)); then
        say "  would run: $*"
    else
        say "  running: $*"
        "$@"
    fi
}

# True when a service manager is running (sd_booted): not in a chroot, a container or a test.
systemd_running() { [[ -z "$ROOT" && -d /run/systemd/system ]]; }


os_codename() {
    local file="${ROOT}/etc/os-release"
    [[ -r "$file" ]] || die "cannot read /etc/os-release: is this Raspberry Pi OS?"
    # shellcheck disable=SC1090
    (. "$file" && printf '%s\n' "${VERSION_CODENAME:-unknown}")
}

# The apt packages for a release; "a|b" takes the first that apt knows.
pi_packages() {
    local codename="$1"
    local packages=(
        python3-venv python3-setuptools python3-wheel
        python3-numpy python3-opencv python3-pygame
        python3-gpiozero python3-lgpio python3-picamera2
        "rpicam-apps-lite|libcamera-apps-lite"
        # The phones' pages ([phone] in config.toml): the server, the QR codes, the report's chart.
        python3-aiohttp python3-segno python3-matplotlib
    )
    case "$codename" in
        bookworm | trixie) ;;
        *) warn "Raspberry Pi OS ${codename} is not tested; trying the Bookworm package names." ;;
    esac
    printf '%s\n' "${packages[@]}"
}

has_candidate() {
    local candidate
    candidate="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')"
    [[ -n "$candidate" && "$candidate" != "(none)" ]]
}

is_installed() {
    [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

# Picks the package for each "a|b" choice: an installed one, else the first apt can install.
resolve_package() {
    local choice="$1" name
    local -a names
    IFS='|' read -r -a names <<<"$choice"
    for name in "${names[@]}"; do
        if is_installed "$name"; then
            printf '%s\n' "$name"
            return 0
        fi
    done
    for name in "${names[@]}"; do
        if has_candidate "$name"; then
            printf '%s\n' "$name"
            return 0
        fi
    done
    return 1
}

install_packages() {
    local codename choice name updated=0
    local -a missing=() unknown=()
    codename="$(os_codename)"
    say "Packages (Raspberry Pi OS ${codename}):"
    while read -r choice; do
        if ! name="$(resolve_package "$choice")"; then
            if ((!updated)) && ((!DRY_RUN)); then
                run apt-get update
                updated=1
            fi
            name="$(resolve_package "$choice")" || {
                unknown+=("${choice//|/ or }")
                continue
            }
        fi
        is_installed "$name" || missing+=("$name")
    done < <(pi_packages "$codename")
    if ((${#unknown[@]})); then
        die "apt does not know ${unknown[*]}. These come from the Raspberry Pi OS repository: install on Raspberry Pi OS (Bookworm or Trixie), or add its apt source."
    fi
    if ((${#missing[@]} == 0)); then
        say "  all installed"
        return 0
    fi
    ((updated)) || run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

create_user() {
    local group
    say "User ${SERVICE_USER} (groups ${DEVICE_GROUPS[*]}):"
    for group in "${DEVICE_GROUPS[@]}"; do
        getent group "$group" >/dev/null || run groupadd --system "$group"
    done
    if ! getent passwd "$SERVICE_USER" >/dev/null; then
        run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "Tigris & Euphrates companion" "$SERVICE_USER"
    fi
    local current missing=()
    current=" $(id -nG "$SERVICE_USER" 2>/dev/null || true) "
    for group in "${DEVICE_GROUPS[@]}"; do
        [[ "$current" == *" $group "* ]] || missing+=("$group")
    done
    if ((${#missing[@]})); then
        run usermod --append --groups "$(
            IFS=,
            printf '%s' "${missing[*]}"
        )" "$SERVICE_USER"
    else
        say "  up to date"
    fi
}

# What the installed copy was built from: the package's files, not the checkout's other files.
source_fingerprint() {
    (cd "$SOURCE_DIR" && find pyproject.toml companion vision -type f \
        ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum | sha256sum |
        cut -d' ' -f1)
}

install_program() {
    local venv="${ROOT}${PREFIX}" stamp fingerprint
    say "Program in ${PREFIX}:"
    if [[ ! -x "${venv}/bin/python" ]] || ! grep -qx 'include-system-site-packages = true' "${venv}/pyvenv.cfg"; then
        run "$SYSTEM_PYTHON" -m venv --clear --system-site-packages "$venv"
    fi
    stamp="${venv}/.installed-from"
    fingerprint="$(source_fingerprint)"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$fingerprint" ]]; then
        say "  up to date"
        return 0
    fi
    # --no-deps: numpy, OpenCV and pygame must stay apt's (pyproject lists none on purpose).
    run "${venv}/bin/python" -m pip install --quiet --no-deps --no-build-isolation --no-index \
        --upgrade "$SOURCE_DIR"
    RESTART=1
    if ((!DRY_RUN)); then
        printf '%s\n' "$fingerprint" >"$stamp"
    fi
}

link_command() {
    local link="${ROOT}${COMMAND_LINK}"
    if [[ "$(readlink "$link" || true)" != "${PREFIX}/bin/companion" ]]; then
        run ln -sfn "${PREFIX}/bin/companion" "$link"
    fi
}

check_system_libraries() {
    local venv="${ROOT}${PREFIX}" module location
    if ((DRY_RUN)); then
        return 0
    fi
    for module in numpy cv2 pygame; do
        location="$(PYGAME_HIDE_SUPPORT_PROMPT=1 "${venv}/bin/python" -c "import ${module}; print(${module}.__file__)" 2>/dev/null)" || {
            warn "${module} cannot be imported in ${PREFIX}; run \`companion doctor\`."
            continue
        }
        [[ "$location" == /usr/lib/python3/* ]] ||
            warn "${module} comes from ${location}, not from apt: remove it (${PREFIX}/bin/pip uninstall ${module})."
    done
}

install_config() {
    local target="${ROOT}${CONFIG_DIR}/config.toml"
    say "Settings ${CONFIG_DIR}/config.toml:"
    if [[ -e "$target" ]]; then
        say "  kept as it is"
        return 0
    fi
    run install -D -m 0644 "${SOURCE_DIR}/systemd/config.toml" "$target"
}

create_state_dir() {
    local dir="${ROOT}${STATE_DIR}"
    say "Game records and calibration in ${STATE_DIR}:"
    if [[ -d "$dir" && "$(stat -c '%U:%G %a' "$dir")" == "${SERVICE_USER}:${SERVICE_USER} 750" ]]; then
        say "  up to date"
        return 0
    fi
    run install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$dir"
}

install_service() {
    local mode="$1" unit="${ROOT}${UNIT_DIR}/${SERVICE}" autostart="${ROOT}${AUTOSTART}" reload=0
    local changed_before=$CHANGED
    CHANGED=0
    say "Start at boot (${mode}):"
    if ! cmp -s "${SOURCE_DIR}/systemd/${SERVICE}" "$unit"; then
        run install -D -m 0644 "${SOURCE_DIR}/systemd/${SERVICE}" "$unit"
        reload=1
        RESTART=1
    fi
    if ((reload)) && systemd_running; then
        run systemctl daemon-reload
    fi
    if [[ "$mode" == kiosk ]]; then
        if [[ -e "$autostart" ]]; then
            run rm -f "$autostart"
        fi
        if ! service_enabled; then
            run "${SYSTEMCTL[@]}" enable "$SERVICE"
        fi
        if systemd_running && [[ "$(systemctl get-default 2>/dev/null)" == graphical.target ]]; then
            warn "this Pi starts a desktop on tty1. For the kiosk, boot to the console" \
                "(sudo raspi-config nonint do_boot_behaviour B1), or run install.sh --desktop."
        fi
    else
        if service_enabled; then
            run "${SYSTEMCTL[@]}" disable "$SERVICE"
        fi
        if ! cmp -s "${SOURCE_DIR}/systemd/companion-desktop.desktop" "$autostart"; then
            run install -D -m 0644 "${SOURCE_DIR}/systemd/companion-desktop.desktop" "$autostart"
        fi
    fi
    if ((!CHANGED)); then
        say "  up to date"
    fi
    CHANGED=$((CHANGED | changed_before))
}

service_enabled() { [[ "$("${SYSTEMCTL[@]}" is-enabled "$SERVICE" 2>/dev/null || true)" == enabled ]]; }

check_camera() {
    local lister output
    say "Camera:"
    lister="$(command -v rpicam-hello || command -v libcamera-hello || true)"
    if [[ -z "$lister" ]]; then
        say "  not checked: rpicam-hello is missing (sudo apt install rpicam-apps-lite)"
        return 0
    fi
    output="$(timeout 30 "$lister" --list-cameras 2>&1 || true)"
    if grep -Eq '^[[:space:]]*[0-9]+[[:space:]]*:' <<<"$output"; then
        say "  found: $(grep -E '^[[:space:]]*[0-9]+[[:space:]]*:' <<<"$output" | awk '{print $3}' | paste -sd' ')"
    else
        say "  NO CAMERA FOUND. Power off, reseat the ribbon cable (both ends, contacts the right way"
        say "  round), check camera_auto_detect=1 in /boot/firmware/config.txt, reboot, then run:"
        say "  rpicam-hello --list-cameras"
    fi
}

install_pi() {
    local mode="$1"
    [[ $EUID -eq 0 || -n "$ROOT" ]] || ((DRY_RUN)) || die "run it as root: sudo ./install.sh"
    install_packages
    create_user
    install_program
    link_command
    check_system_libraries
    install_config
    create_state_dir
    install_service "$mode"
    if ((RESTART)) && systemd_running; then
        # Only if it is running: the new program starts now instead of at the next boot.
        run systemctl try-restart "$SERVICE"
    fi
    check_camera
}

remove() {
    if [[ -e "$1" || -L "$1" ]]; then
        run rm -rf "$1"
    fi
}

uninstall_pi() {
    local purge="$1"
    [[ $EUID -eq 0 || -n "$ROOT" ]] || ((DRY_RUN)) || die "run it as root: sudo ./install.sh --uninstall"
    say "Removing the companion:"
    if [[ -e "${ROOT}${UNIT_DIR}/${SERVICE}" ]]; then
        if systemd_running; then
            run systemctl disable --now "$SERVICE"
        else
            run "${SYSTEMCTL[@]}" disable "$SERVICE"
        fi
        run rm -f "${ROOT}${UNIT_DIR}/${SERVICE}"
        if systemd_running; then
            run systemctl daemon-reload
        fi
    fi
    remove "${ROOT}${AUTOSTART}"
    remove "${ROOT}${COMMAND_LINK}"
    remove "${ROOT}${PREFIX}"
    if ((purge)); then
        remove "${ROOT}${STATE_DIR}"
        remove "${ROOT}${CONFIG_DIR}"
        if getent passwd "$SERVICE_USER" >/dev/null; then
            run userdel "$SERVICE_USER"
        fi
    elif [[ -e "${ROOT}${STATE_DIR}" || -e "${ROOT}${CONFIG_DIR}" ]]; then
        say "  kept: game records and calibration in ${STATE_DIR}, settings in ${CONFIG_DIR}" \
            "(--purge removes them)"
    fi
    say "  apt packages are left installed (other programs may use them)"
}

install_dev() {
    local venv="${SOURCE_DIR}/.venv" stamp fingerprint
    "$DEV_PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "Python 3.11 or newer is needed ($DEV_PYTHON is $("$DEV_PYTHON" --version 2>&1))"
    say "Development environment in .venv:"
    stamp="${venv}/.installed-from"
    fingerprint="$(sha256sum "${SOURCE_DIR}/pyproject.toml" | cut -d' ' -f1)"
    # The project is installed editable: only a change of pyproject.toml needs pip again.
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$fingerprint" ]] &&
        "${venv}/bin/python" -c 'import companion, numpy, cv2, pygame, pytest' >/dev/null 2>&1; then
        say "  up to date"
        return 0
    fi
    if [[ ! -x "${venv}/bin/python" ]]; then
        run "$DEV_PYTHON" -m venv "$venv"
    fi
    run "${venv}/bin/python" -m pip install --quiet --upgrade pip
    run "${venv}/bin/python" -m pip install --quiet -e "${SOURCE_DIR}[laptop,dev]"
    if ((!DRY_RUN)); then
        printf '%s\n' "$fingerprint" >"$stamp"
    fi
}

usage() {
    sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

main() {
    local action=pi mode=kiosk purge=0 arg
    for arg in "$@"; do
        case "$arg" in
            --dev) action=dev ;;
            --desktop) mode=desktop ;;
            --uninstall) action=uninstall ;;
            --purge) purge=1 ;;
            --dry-run) DRY_RUN=1 ;;
            -h | --help)
                usage
                return 0
                ;;
            *) die "unknown option ${arg} (see ./install.sh --help)" ;;
        esac
    done
    if ((purge)) && [[ "$action" != uninstall ]]; then
        die "--purge goes with --uninstall"
    fi
    if ((DRY_RUN)); then
        say "Dry run: nothing is changed."
    fi
    case "$action" in
        dev) install_dev ;;
        pi) install_pi "$mode" ;;
        uninstall) uninstall_pi "$purge" ;;
    esac
    if ((CHANGED == 0)); then
        say "Nothing to change: everything was already in place."
    elif ((DRY_RUN)); then
        say "Dry run finished: run without --dry-run to make these changes."
    fi
    case "$action" in
        dev) say "Ready: .venv/bin/companion demo   |   .venv/bin/python -m pytest" ;;
        pi)
            if ((!DRY_RUN)); then
                say "Ready. Start now: sudo systemctl start companion   Check: companion doctor"
            fi
            ;;
    esac
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
