// Device-side `new`/`delete` and `malloc` (nvcc calls `malloc` and `free`)
// with the heap size set by cudaDeviceSetLimit(cudaLimitMallocHeapSize):
// - each thread builds a linked list of 8 nodes with `new`; a later kernel
//   walks each list, sums it and `delete`s its nodes;
// - on a 64 MiB heap a 40 MiB block fits (it would not in CUDA's default
//   8 MiB), and a second one does not (NULL);
// - the limit reads back, and setting it after a kernel used the heap is
//   refused (cudaErrorInvalidValue), as CUDA documents.
// Every value printed is the program's own host check.
#include <cstdio>
#include <cuda_runtime.h>

struct Node {
    int value;
    Node* next;
};

__global__ void build(Node** heads, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    Node* head = nullptr;
    for (int i = 0; i < n; i++) {
        Node* x = new Node;
        x->value = t * 100 + i;
        x->next = head;
        head = x;
    }
    heads[t] = head;
}

__global__ void sum_and_delete(Node** heads, long long* sums)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    long long s = 0;
    Node* x = heads[t];
    while (x) {
        s += x->value;
        Node* next = x->next;
        delete x;
        x = next;
    }
    sums[t] = s;
}

__global__ void big(int* flags)
{
    char* a = (char*)malloc(40u << 20);
    char* b = (char*)malloc(40u << 20);
    flags[0] = a != nullptr;
    flags[1] = b == nullptr;
    if (a) {
        a[(40u << 20) - 1] = 3;
        flags[2] = a[(40u << 20) - 1];
    }
    free(a);
}

int main()
{
    const int threads = 256, n = 8;
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20);
    size_t limit = 0;
    cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize);
    printf("set: %s, limit %zu MiB\n", cudaGetErrorName(e), limit >> 20);

    Node** heads;
    long long* sums;
    cudaMalloc(&heads, threads * sizeof(Node*));
    cudaMalloc(&sums, threads * sizeof(long long));
    build<<<threads / 64, 64>>>(heads, n);
    sum_and_delete<<<threads / 64, 64>>>(heads, sums);
    long long got[threads];
    cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost);
    int right = 0;
    for (int t = 0; t < threads; t++) {
        long long want = 0;
        for (int i = 0; i < n; i++)
            want += t * 100 + i;
        right += got[t] == want;
    }
    printf("lists: %d of %d sums right\n", right, threads);

    int* flags;
    cudaMalloc(&flags, 3 * sizeof(int));
    cudaMemset(flags, 0, 3 * sizeof(int));
    big<<<1, 1>>>(flags);
    int f[3];
    cudaMemcpy(f, flags, sizeof f, cudaMemcpyDeviceToHost);
    printf("big: first %s, second %s, read back %d\n", f[0] ? "allocated" : "NULL",
           f[1] ? "NULL" : "allocated", f[2]);

    e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16u << 20);
    cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize);
    printf("set after: %s, limit %zu MiB\n", cudaGetErrorName(e), limit >> 20);
    printf("last: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
