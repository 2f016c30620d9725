import chdb, struct
M=(1<<64)-1
def ih(x):
    x ^= x>>33; x=(x*0xff51afd7ed558ccd)&M; x^=x>>33; x=(x*0xc4ceb9fe1a85ec53)&M; x^=x>>33; return x
def varuint(n):
    out=b''
    while True:
        b=n&0x7f; n>>=7
        if n: out+=bytes([b|0x80])
        else: return out+bytes([b])
class Uniq:
    def __init__(s): s.deg=4; s.buf=[0]*16; s.m=0; s.skip=0; s.zero=False
    def mask(s): return (1<<s.deg)-1
    def place(s,x): return (x>>15)&s.mask()
    def good(s,x): return x==((x>>s.skip)<<s.skip)
    def reinsert(s,x):
        p=s.place(x)
        while s.buf[p]: p=(p+1)&s.mask()
        s.buf[p]=x
    def insert_impl(s,x):
        if x==0:
            s.m += not s.zero; s.zero=True; return
        p=s.place(x)
        while s.buf[p] and s.buf[p]!=x: p=(p+1)&s.mask()
        if s.buf[p]==x: return
        s.buf[p]=x; s.m+=1
    def resize(s):
        old=len(s.buf); s.deg+=1; s.buf += [0]*old
        i=0
        while i<old or s.buf[i]:
            x=s.buf[i]
            if x:
                p=s.place(x)
                if p!=i:
                    while s.buf[p] and s.buf[p]!=x: p=(p+1)&s.mask()
                    if s.buf[p]!=x: s.buf[p]=x; s.buf[i]=0
            i+=1
    def rehash(s):
        n=len(s.buf)
        for i in range(n):
            if s.buf[i]:
                if not s.good(s.buf[i]): s.buf[i]=0; s.m-=1
                elif i!=s.place(s.buf[i]):
                    x=s.buf[i]; s.buf[i]=0; s.reinsert(x)
        i=0
        while i<n and s.buf[i]:
            if i!=s.place(s.buf[i]):
                x=s.buf[i]; s.buf[i]=0; s.reinsert(x)
            i+=1
    def shrink(s):
        if s.m > (1<<(s.deg-1)):
            if s.m > 65536:
                while s.m>65536: s.skip+=1; s.rehash()
            else: s.resize()
    def insert(s,v):
        h=ih(v)&0xffffffff
        if not s.good(h): return
        s.insert_impl(h); s.shrink()
    def write(s):
        out=bytes([s.skip])+varuint(s.m)
        if s.zero: out+=b'\0'*4
        for x in s.buf:
            if x: out+=struct.pack('<I',x)
        return out
for n in [3,5,20,100,1000,10000,100000,300000]:
    u=Uniq()
    for i in range(n): u.insert(i)
    mine=u.write().hex().upper()
    ch=str(chdb.query(f"SELECT hex(uniqState(number)) FROM numbers({n}) SETTINGS max_threads=1, max_block_size=65536",'TSV')).strip()
    print(n, mine==ch, len(mine)//2, len(ch)//2, u.skip, u.m)
