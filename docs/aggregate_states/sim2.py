import chdb, struct, hashlib
def crc32c_u64(x):
    crc=0xffffffff
    for b in x.to_bytes(8,'little'):
        crc ^= b
        for _ in range(8): crc = (crc>>1) ^ (0x82F63B78 if crc&1 else 0)
    return crc
def varuint(n):
    out=b''
    while True:
        b=n&0x7f; n>>=7
        if n: out+=bytes([b|0x80])
        else: return out+bytes([b])
class HS:
    def __init__(s,deg,h): s.deg=deg; s.buf=[None]*(1<<deg); s.n=0; s.zero=False; s.h=h
    def mask(s): return (1<<s.deg)-1
    def insert(s,k):
        if k==0:
            if not s.zero: s.zero=True; s.n+=1
            return
        p=s.h(k)&s.mask()
        while s.buf[p] is not None and s.buf[p]!=k: p=(p+1)&s.mask()
        if s.buf[p]==k: return
        s.buf[p]=k; s.n+=1
        if s.n > (1<<(s.deg-1)): s.resize()
    def reinsert(s,i):
        k=s.buf[i]; p=s.h(k)&s.mask()
        if p==i: return
        while s.buf[p] is not None and s.buf[p]!=k: p=(p+1)&s.mask()
        if s.buf[p]==k: return
        s.buf[p]=k; s.buf[i]=None
    def resize(s):
        old=len(s.buf); s.deg += 1 if s.deg>=23 else 2
        s.buf += [None]*((1<<s.deg)-old)
        for i in range(old):
            if s.buf[i] is not None: s.reinsert(i)
        i=old
        while i<len(s.buf) and s.buf[i] is not None:
            s.reinsert(i); i+=1
    def write(s, enc):
        out=varuint(s.n)
        if s.zero: out+=enc(0)
        for k in s.buf:
            if k is not None: out+=enc(k)
        return out
for n in []:
    hs=HS(4,crc32c_u64) if n<=20000 else None
    if hs is None:
        # fast crc via chdb? just skip large
        pass
    if hs:
        for i in range(n): hs.insert(i)
        mine=hs.write(lambda k: struct.pack('<Q',k)).hex().upper()
    ch=str(chdb.query(f"SELECT hex(uniqExactState(number)) FROM numbers({n}) SETTINGS max_threads=1",'TSV')).strip()
    print(n, (mine==ch) if hs else '-', len(ch)//2)
print('strings')
for n in [3,10,100,1000]:
    keys=[bytes.fromhex(l) for l in str(chdb.query(f"SELECT hex(sipHash128(toString(number))) FROM numbers({n})",'TSV')).split()]
    hs=HS(3,lambda k: int.from_bytes(k[:8],'little'))
    for k in keys: hs.insert(k)
    mine=hs.write(lambda k:k).hex().upper()
    ch=str(chdb.query(f"SELECT hex(uniqExactState(toString(number))) FROM numbers({n}) SETTINGS max_threads=1",'TSV')).strip()
    print(n, mine==ch)
