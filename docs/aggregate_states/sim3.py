import chdb, struct
M=(1<<64)-1; MULT=6364136223846793005
class Pcg:
    def __init__(s, seed=123456): s.state = seed|3
    def __call__(s):
        old=s.state; s.state=(s.state*MULT)&M
        x=old; r=x>>61; x ^= x>>22; return (x >> (22+r)) & 0xffffffff
def reservoir(vals, sc=8192):
    rng=Pcg(); samples=[]; total=0
    for v in vals:
        total+=1
        if len(samples)<sc: samples.append(v)
        else:
            rnd = rng() % total
            if rnd < sc: samples[rnd]=v
    rs=f"{MULT} 0 {rng.state}".encode()
    return struct.pack('<QQ',sc,total)+bytes([len(rs)])+rs+b''.join(struct.pack('<d',x) for x in samples)
for n in [0,3,8192,8193,10000,50000]:
    mine=reservoir([float(i) for i in range(n)]).hex().upper()
    ch=str(chdb.query(f"SELECT hex(quantileState(0.5)(toFloat64(number))) FROM numbers({n}) SETTINGS max_threads=1",'TSV')).strip()
    print(n, mine==ch, mine[:150]==ch[:150], len(ch)//2)
    if mine!=ch: print(' ', mine[:150]); print(' ', ch[:150])
