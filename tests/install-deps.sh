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
# plugin/ (roce.so): Wireshark 4.0's epan headers and glib (pkg-config wireshark needs both)
apt-get install -y -q --no-install-recommends libwireshark-dev libglib2.0-dev
