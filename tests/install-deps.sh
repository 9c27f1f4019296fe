#!/bin/sh
# install-deps.sh: every Debian package the project needs to build and to run all its tests.
# Run as root on Debian 12 (bookworm). tshark and scapy are the cross-check oracles.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
	gcc libc6-dev meson ninja-build pkg-config \
	libpcap-dev libisal-dev libcriterion-dev \
	python3 python3-scapy tshark wireshark-common tcpdump util-linux
# roceconform's real-DUT test (tests/dut/test-conformance.sh): qemu boots the Soft-RoCE guest, kmod and cpio
# build its image (tests/dut/build-guest.sh), iproute2 and nftables make its private namespace
apt-get install -y -q --no-install-recommends qemu-system-x86 kmod cpio iproute2 nftables
# roceconform --dut-ssh (the DUT agent) and the harness's throwaway key pair: OpenSSH's ssh and ssh-keygen
apt-get install -y -q --no-install-recommends openssh-client
# plugin/ (roce.so): Wireshark 4.0's epan headers and glib (pkg-config wireshark needs both)
apt-get install -y -q --no-install-recommends libwireshark-dev libglib2.0-dev
# the plugin in Wireshark's own Qt window under a virtual X server (tests/plugin/plugin_gui.py): clicks
# with xdotool, windows listed with xwininfo (x11-utils), the clipboard read with xclip, screenshots
# with ImageMagick
apt-get install -y -q --no-install-recommends wireshark-qt xvfb xdotool x11-utils xclip imagemagick
# jq: README.md's JSON example pipes rocedump into it (tests/cli/readme_examples.py runs it);
# groff-base: the man page is checked with groff -man -ww (tests/cli/test-docs.sh)
apt-get install -y -q --no-install-recommends jq groff-base
# headless Chromium: the report tests open rocedump --report's pages in it (tests/report)
apt-get install -y -q --no-install-recommends chromium
# live capture (rocedump -i): the metrics endpoint's HTTP library
apt-get install -y -q --no-install-recommends libmicrohttpd-dev
# live capture tests: replaying captures onto veth pairs, scraping and checking the metrics
apt-get install -y -q --no-install-recommends tcpreplay iproute2 curl prometheus
# rocedump --export: libcurl's header (the library is loaded at run time); the 'clickhouse' suite
# runs a ClickHouse server of its own (skipped without it)
apt-get install -y -q --no-install-recommends libcurl4-openssl-dev clickhouse-server clickhouse-client
# the static analysers run by tests/static/run-static.sh (meson test static-analysis)
apt-get install -y -q --no-install-recommends clang-tidy cppcheck
