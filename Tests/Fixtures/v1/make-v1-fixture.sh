set -euo pipefail
# Provenance of Tests/Fixtures/v1: run once with the aisync 1 binary (commit ca3ecee, built
# as /tmp/aisync-v1) to make a real aisync 1 laptop store, phone store and folder remote with
# concurrent edits. Kept for reference; the tests only read its output.
A="/tmp/aisync-v1 --store /tmp/fx/laptop"
B="/tmp/aisync-v1 --store /tmp/fx/phone"
python3 - <<'PY'
import zlib, struct
def png(w,h,rgb,path):
    raw=b''.join(b'\x00'+bytes(rgb)*w for _ in range(h))
    def chunk(t,d): return struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d)&0xffffffff)
    data=b'\x89PNG\r\n\x1a\n'+chunk(b'IHDR',struct.pack('>IIBBBBB',w,h,8,2,0,0,0))+chunk(b'IDAT',zlib.compress(raw))+chunk(b'IEND',b'')
    open(path,'wb').write(data)
png(4,3,(200,60,20),'/tmp/fx/fox.png')
png(2,2,(20,60,200),'/tmp/fx/owl.png')
PY
$A init --name laptop >/dev/null
lis=$($A chat new --title "Lisbon trip" --model gpt-4o)
$A chat say $lis --role user "Three things to see in Lisbon?"
$A chat say $lis --role assistant "Belém Tower, Alfama, and the LX Factory."
fox=$($A image add /tmp/fx/fox.png --prompt "a red fox reading, watercolor" --model dall-e-3)
owl=$($A image add /tmp/fx/owl.png --prompt "an owl at night" --model dall-e-2 --title "Owl")
sto=$($A story new --title "The Fox" --moral "Read every day" --page "Once upon a time a fox found a book." --page "She read it twice." --image $fox --image $owl)
gro=$($A chat new --title "Groceries" --model davinci)
$A chat say $gro --role user "Milk, eggs"
old=$($A chat new --title "Old chat")
$A rm $old
mkdir -p /tmp/fx/remote
$A remote add usb file:///tmp/fx/remote
$A push >/dev/null
$B init --name phone >/dev/null
$B remote add usb file:///tmp/fx/remote
$B pull >/dev/null
# concurrent edits
$B chat say $lis --role user "Where should we eat?"
$B rename $sto "Fox tales"
$B rename $gro "Groceries for Sunday"
$A chat say $lis --role user "Add a day trip to Sintra?"
$A favorite $lis
$A rename $sto "Fox stories"
$A rm $gro
$B push >/dev/null
$A pull >/dev/null
$A push >/dev/null
echo "lis=$lis fox=$fox owl=$owl sto=$sto gro=$gro old=$old"
