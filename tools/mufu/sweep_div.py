"""Division forms, GPU side of the hashed check (see README.md): 3 streams x 2^26 source
pairs per form -> $OUT/div.npy (12 x 64 chunk hashes), to compare with
`mufu_sweep FORM STREAM`. Minified for the device command, as probe.py."""
import numpy as np,os,cupy as cp
O=os.environ['OUT']+'/';U=cp.uint64;K={}
def F(f,a,b):
 if f not in K:K[f]=cp.RawKernel('extern "C" __global__ void k(const unsigned*x,const unsigned*z,unsigned*y,long n){long i=blockIdx.x*(long)blockDim.x+threadIdx.x;if(i<n){float a=__uint_as_float(x[i]),b=__uint_as_float(z[i]),d;asm volatile("%s %%0,%%1,%%2;":"=f"(d):"f"(a),"f"(b));y[i]=__float_as_uint(d);}}'%f,'k')
 n=len(a);y=cp.empty(n,cp.uint32);K[f](((n+255)//256,),(256,),(a,b,y,np.int64(n)));return y
def sm(x):
 z=x+U(0x9E3779B97F4A7C15);z=(z^(z>>U(30)))*U(0xBF58476D1CE4E5B9);z=(z^(z>>U(27)))*U(0x94D049BB133111EB);return z^(z>>U(31))
E=cp.array([0,1,2,125,126,127,128,129,252,253,254],U)
mid=lambda v:(v&U(0x807fffff))|((U(64)+((v>>U(23))&U(255))%U(127))<<U(23))
W=2*cp.arange(1<<20,dtype=U)+U(1);R={}
for f in ['div.approx.f32','div.approx.ftz.f32','div.full.f32','div.full.ftz.f32']:
 for s in range(3):
  z=sm(cp.arange(1<<26,dtype=U)+U(s<<40));lo=z&U(0xffffffff);hi=z>>U(32)
  a,b=[(lo,hi),(mid(lo),mid(hi)),(mid(lo),(hi&U(0x807fffff))|(E[(((hi>>U(23))&U(255))%U(11)).astype(cp.int64)]<<U(23)))][s]
  y=F(f,a.astype(cp.uint32),b.astype(cp.uint32));R[f+str(s)]=cp.asnumpy((y.astype(U).reshape(64,1<<20)*W).sum(axis=1))
np.save(O+'div.npy',np.stack(list(R.values())));print(list(R))
