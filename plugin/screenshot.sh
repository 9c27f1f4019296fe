#!/bin/sh
# screenshot.sh: remake plugin/screenshot.png and docs/plugin.md's two pictures from the screenshots
# of the test plugin-gui (tests/plugin/plugin_gui.py: Wireshark's Qt GUI under Xvfb, as an
# unprivileged user, with roce.so from BUILD and the profile RoCE, on the lossy capture
# captures/rxe/rc_pingpong_loss.pcap at frame 46, a retransmission, its RoCE analysis expanded).
# Needs what that test needs (wireshark-qt, xvfb, xdotool, xclip, ImageMagick) and a build
# configured with -Dplugin=enabled. Not a test: the pictures are for plugin/README.md and
# docs/plugin.md.
#   plugin/screenshot.sh BUILD-DIR
set -eu
BUILD=$1 SRC=$(cd "$(dirname "$0")/.." && pwd)
meson test -C "$BUILD" plugin-gui
G=$BUILD/tests/plugin/gui
convert "$G/main-analysis.png" -colors 32 -strip "PNG8:$SRC/plugin/screenshot.png"
convert "$G/analysis-tree.png" -colors 32 -strip "PNG8:$SRC/docs/plugin-analysis-tree.png"
convert "$G/flow.png" -crop 1280x700+0+0 +repage -colors 32 -strip "PNG8:$SRC/docs/plugin-flow-graph.png"
