def call(args):
    # planned peak: 0 bytes of buffers allocated here, at step 0
    (arg0,) = args
    args.clear()
    if (arg0.stride(),) != ((2, 1, 1),):
        arg0 = _layout(arg0, (1, 2, 1), (2, 1, 1), (1,))
    ext0 = _layout(_op0(arg0, 1, 2, 2), (1, 1, 1, 2), (2, 2, 1, 1), (3,))
    return [ext0]
