#!/bin/sh
# screenshot.sh: remake plugin/screenshot.png: Wireshark's Qt GUI under Xvfb, as an unprivileged
# user (Wireshark run as root ignores plugin directories) with roce.so from BUILD, on the lossy
# capture captures/rxe/rc_pingpong_loss.pcap at frame 46 (a retransmission), its RoCE tree
# expanded (xdotool: a click on the row, Shift+Right). Needs wireshark-qt, xvfb, xdotool and
# ImageMagick. Not a test: the picture is for plugin/README.md.
#   plugin/screenshot.sh BUILD-DIR
set -eu
BUILD=$1 SRC=$(cd "$(dirname "$0")/.." && pwd) D=$(mktemp -d) DPY=:${ROCE_SHOT_DISPLAY:-93}
mkdir -p "$D/4.0/epan" "$D/.config/wireshark"
cp "$BUILD/plugin/roce.so" "$D/4.0/epan/"
cp "$SRC/captures/rxe/rc_pingpong_loss.pcap" "$D/"
echo 'gui.byte_view_show: FALSE' >"$D/.config/wireshark/recent"
chmod -R a+rwX "$D"
Xvfb "$DPY" -ac -screen 0 1280x1000x24 >/dev/null 2>&1 &
xvfb=$!
sleep 2
setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME="$D" DISPLAY="$DPY" \
	XDG_RUNTIME_DIR="$D" WIRESHARK_PLUGIN_DIR="$D" wireshark --disable-protocol rpcordma \
	--disable-protocol smb_direct -r "$D/rc_pingpong_loss.pcap" -g 46 >/dev/null 2>&1 &
ws=$!
sleep 15
export DISPLAY="$DPY"
w=$(xdotool search --name rc_pingpong_loss | head -1)
xdotool windowmove "$w" 0 0 windowsize "$w" 1280 1000
sleep 3
xdotool mousemove 208 647 click 1 && sleep 1 && xdotool key shift+Right && sleep 1
xdotool mousemove 640 534 mousedown 1 mousemove 640 400 mousemove 640 290 mouseup 1 && sleep 1
xdotool mousemove 640 800 click 5 click 5 click 5 click 5 click 5 click 5 && sleep 1
xdotool mousemove 1270 990
import -window root "$D/shot.png"
convert "$D/shot.png" -crop 1280x900+0+0 +repage -colors 32 -strip "PNG8:$SRC/plugin/screenshot.png"
kill "$ws" "$xvfb"
rm -rf "$D"
