def call(args):
    # planned peak: 1929164 bytes of buffers allocated here, at step 88
    (arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9, arg10, arg11, arg12, arg13, arg14, arg15, arg16, arg17, arg18, arg19, arg20, arg21, arg22, arg23, arg24, arg25, arg26, arg27, arg28, arg29, arg30, arg31, arg32, arg33, arg34, arg35, arg36, arg37, arg38, arg39, arg40, arg41, arg42, arg43, arg44, arg45, arg46, arg47, arg48, arg49, arg50, arg51, arg52, arg53, arg54, arg55, arg56, arg57, arg58, arg59, arg60, arg61, arg62, arg63, arg64, arg65, arg66, arg67, arg68, arg69, arg70, arg71, arg72, arg73,) = args
    args.clear()
    if (arg0.stride(), arg1.stride(), arg2.stride(), arg3.stride(), arg4.stride(), arg5.stride(), arg6.stride(), arg7.stride(), arg8.stride(), arg9.stride(), arg10.stride(), arg11.stride(), arg12.stride(), arg13.stride(), arg14.stride(), arg15.stride(), arg16.stride(), arg17.stride(), arg18.stride(), arg19.stride(), arg20.stride(), arg21.stride(), arg22.stride(), arg23.stride(), arg24.stride(), arg25.stride(), arg26.stride(), arg27.stride(), arg28.stride(), arg29.stride(), arg30.stride(), arg31.stride(), arg32.stride(), arg33.stride(), arg34.stride(), arg35.stride(), arg36.stride(), arg37.stride(), arg38.stride(), arg39.stride(), arg40.stride(), arg41.stride(), arg42.stride(), arg43.stride(), arg44.stride(), arg45.stride(), arg46.stride(), arg47.stride(), arg48.stride(), arg49.stride(), arg50.stride(), arg51.stride(), arg52.stride(), arg53.stride(), arg54.stride(), arg55.stride(), arg56.stride(), arg57.stride(), arg58.stride(), arg59.stride(), arg60.stride(), arg61.stride(), arg62.stride(), arg63.stride(), arg64.stride(), arg65.stride(), arg66.stride(), arg67.stride(), arg68.stride(), arg69.stride(), arg70.stride(), arg71.stride(), arg72.stride(), arg73.stride(),) != ((27, 9, 3, 1), (3072, 1, 96, 3), (144, 9, 3, 1), (1,), (1,), (144, 9, 3, 1), (1,), (1,), (144, 9, 3, 1), (288, 9, 3, 1), (1,), (1,), (288, 9, 3, 1), (1,), (1,), (288, 9, 3, 1), (576, 9, 3, 1), (1,), (1,), (576, 9, 3, 1), (1,), (1,), (128, 4, 2, 1), (288, 9, 3, 1), (1,), (1,), (288, 9, 3, 1), (1,), (1,), (64, 4, 2, 1), (144, 9, 3, 1), (1,), (1,), (144, 9, 3, 1), (1,), (1,), (16, 1, 1, 1), (16384, 1, 512, 16), (16384, 1, 512, 16), (8, 1, 1, 1), (8, 1, 1, 1), (16384, 1, 512, 16), (8, 1, 1, 1), (8, 1, 1, 1), (8192, 1, 512, 32), (8192, 1, 512, 32), (8, 1, 1, 1), (8, 1, 1, 1), (8192, 1, 512, 32), (8, 1, 1, 1), (8, 1, 1, 1), (4096, 64, 8, 1), (4096, 64, 8, 1), (8, 1, 1, 1), (8, 1, 1, 1), (4096, 64, 8, 1), (8, 1, 1, 1), (8, 1, 1, 1), (8192, 1, 512, 32), (8192, 1, 512, 32), (8, 1, 1, 1), (8, 1, 1, 1), (8192, 1, 512, 32), (8, 1, 1, 1), (8, 1, 1, 1), (16384, 1, 512, 16), (16384, 1, 512, 16), (8, 1, 1, 1), (8, 1, 1, 1), (16384, 1, 512, 16), (8, 1, 1, 1), (8, 1, 1, 1), (3072, 1, 96, 3), (),):
        arg0 = _layout(arg0, (16, 3, 3, 3), (27, 9, 3, 1), (0, 1, 2, 3))
        arg1 = _layout(arg1, (4, 3, 32, 32), (3072, 1, 96, 3), (0, 1, 2, 3))
        arg2 = _layout(arg2, (16, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg3 = _layout(arg3, (16,), (1,), (0,))
        arg4 = _layout(arg4, (16,), (1,), (0,))
        arg5 = _layout(arg5, (16, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg6 = _layout(arg6, (16,), (1,), (0,))
        arg7 = _layout(arg7, (16,), (1,), (0,))
        arg8 = _layout(arg8, (32, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg9 = _layout(arg9, (32, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg10 = _layout(arg10, (32,), (1,), (0,))
        arg11 = _layout(arg11, (32,), (1,), (0,))
        arg12 = _layout(arg12, (32, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg13 = _layout(arg13, (32,), (1,), (0,))
        arg14 = _layout(arg14, (32,), (1,), (0,))
        arg15 = _layout(arg15, (64, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg16 = _layout(arg16, (64, 64, 3, 3), (576, 9, 3, 1), (0, 1, 2, 3))
        arg17 = _layout(arg17, (64,), (1,), (0,))
        arg18 = _layout(arg18, (64,), (1,), (0,))
        arg19 = _layout(arg19, (64, 64, 3, 3), (576, 9, 3, 1), (0, 1, 2, 3))
        arg20 = _layout(arg20, (64,), (1,), (0,))
        arg21 = _layout(arg21, (64,), (1,), (0,))
        arg22 = _layout(arg22, (64, 32, 2, 2), (128, 4, 2, 1), (0, 1, 2, 3))
        arg23 = _layout(arg23, (32, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg24 = _layout(arg24, (32,), (1,), (0,))
        arg25 = _layout(arg25, (32,), (1,), (0,))
        arg26 = _layout(arg26, (32, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg27 = _layout(arg27, (32,), (1,), (0,))
        arg28 = _layout(arg28, (32,), (1,), (0,))
        arg29 = _layout(arg29, (32, 16, 2, 2), (64, 4, 2, 1), (0, 1, 2, 3))
        arg30 = _layout(arg30, (16, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg31 = _layout(arg31, (16,), (1,), (0,))
        arg32 = _layout(arg32, (16,), (1,), (0,))
        arg33 = _layout(arg33, (16, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg34 = _layout(arg34, (16,), (1,), (0,))
        arg35 = _layout(arg35, (16,), (1,), (0,))
        arg36 = _layout(arg36, (3, 16, 1, 1), (16, 1, 1, 1), (0, 1))
        arg37 = _layout(arg37, (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
        arg38 = _layout(arg38, (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
        arg39 = _layout(arg39, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg40 = _layout(arg40, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg41 = _layout(arg41, (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
        arg42 = _layout(arg42, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg43 = _layout(arg43, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg44 = _layout(arg44, (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
        arg45 = _layout(arg45, (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
        arg46 = _layout(arg46, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg47 = _layout(arg47, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg48 = _layout(arg48, (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
        arg49 = _layout(arg49, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg50 = _layout(arg50, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg51 = _layout(arg51, (4, 64, 8, 8), (4096, 64, 8, 1), (0, 1, 2, 3))
        arg52 = _layout(arg52, (4, 64, 8, 8), (4096, 64, 8, 1), (0, 1, 2, 3))
        arg53 = _layout(arg53, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg54 = _layout(arg54, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg55 = _layout(arg55, (4, 64, 8, 8), (4096, 64, 8, 1), (0, 1, 2, 3))
        arg56 = _layout(arg56, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg57 = _layout(arg57, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg58 = _layout(arg58, (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
        arg59 = _layout(arg59, (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
        arg60 = _layout(arg60, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg61 = _layout(arg61, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg62 = _layout(arg62, (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
        arg63 = _layout(arg63, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg64 = _layout(arg64, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg65 = _layout(arg65, (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
        arg66 = _layout(arg66, (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
        arg67 = _layout(arg67, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg68 = _layout(arg68, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg69 = _layout(arg69, (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
        arg70 = _layout(arg70, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg71 = _layout(arg71, (4, 8, 1, 1), (8, 1, 1, 1), (0, 1))
        arg72 = _layout(arg72, (4, 3, 32, 32), (3072, 1, 96, 3), (0, 1, 2, 3))
        arg73 = _layout(arg73, (), (), ())
    p6 = _empty((4, 32, 32, 3), torch.float32, (3072, 96, 3, 1))
    k0(arg72.data_ptr(), arg73.data_ptr(), p6.data_ptr())
    del arg73
    del arg72
    p202 = _empty((16, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    p318 = _empty((16, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    p1405 = _empty((16, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    p1521 = _empty((16, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    k10(arg33.data_ptr(), p202.data_ptr(), arg30.data_ptr(), p318.data_ptr(), arg5.data_ptr(), p1405.data_ptr(), arg2.data_ptr(), p1521.data_ptr())
    del arg5
    del arg30
    del arg2
    del arg33
    p366 = _empty((32, 2, 2, 16), torch.float32, (64, 32, 16, 1))
    k21(arg29.data_ptr(), p366.data_ptr())
    del arg29
    p522 = _empty((32, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    p638 = _empty((32, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    p1081 = _empty((32, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    p1197 = _empty((32, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    k29(arg26.data_ptr(), p522.data_ptr(), arg23.data_ptr(), p638.data_ptr(), arg12.data_ptr(), p1081.data_ptr(), arg9.data_ptr(), p1197.data_ptr())
    del arg12
    del arg23
    del arg9
    del arg26
    p674 = _empty((64, 2, 2, 32), torch.float32, (128, 64, 32, 1))
    k40(arg22.data_ptr(), p674.data_ptr())
    del arg22
    p921 = _empty((64, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    k56(arg15.data_ptr(), p921.data_ptr())
    del arg15
    p1245 = _empty((32, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    k72(arg8.data_ptr(), p1245.data_ptr())
    del arg8
    p1529 = _empty((16, 3, 3, 3), torch.float32, (27, 9, 3, 1))
    k88(arg0.data_ptr(), p1529.data_ptr())
    del arg0
    p14 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    p28 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    p167 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    p181 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    p1210 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    p1224 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    p1370 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    p1384 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    k1(arg70.data_ptr(), arg34.data_ptr(), p14.data_ptr(), arg71.data_ptr(), arg35.data_ptr(), p28.data_ptr(), arg67.data_ptr(), arg31.data_ptr(), p167.data_ptr(), arg68.data_ptr(), arg32.data_ptr(), p181.data_ptr(), arg42.data_ptr(), arg6.data_ptr(), p1210.data_ptr(), arg43.data_ptr(), arg7.data_ptr(), p1224.data_ptr(), arg39.data_ptr(), arg3.data_ptr(), p1370.data_ptr(), arg40.data_ptr(), arg4.data_ptr(), p1384.data_ptr())
    del arg35
    del arg7
    del arg32
    del arg4
    p46 = _empty((4, 32, 32, 16), torch.float32, (16384, 512, 16, 1))
    k2(arg69.data_ptr(), p14.data_ptr(), p28.data_ptr(), p46.data_ptr())
    ext48 = _op0(p6.permute((0, 3, 1, 2)), p46.permute((0, 3, 1, 2)), arg36, [3], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True]); g49 = _layout(ext48[0], (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3)); g50 = _layout(ext48[1], (3, 16, 1, 1), (16, 1, 16, 16), (0, 1)); g51 = _layout(ext48[2], (3,), (1,), (0,))
    del p6
    del arg36
    del ext48
    p52 = _empty((3, 16, 1, 1), torch.float32, (16, 1, 1, 1))
    k3(g50.data_ptr(), p52.data_ptr())
    del g50
    p77 = p46; del p46
    p81 = _empty((4, 32, 32, 16), torch.float32, (16384, 512, 16, 1))
    p199 = _empty((4, 32, 32, 16), torch.float32, (16384, 512, 16, 1))
    k4(g49.data_ptr(), arg69.data_ptr(), p14.data_ptr(), p28.data_ptr(), p77.data_ptr(), p81.data_ptr(), arg66.data_ptr(), p167.data_ptr(), p181.data_ptr(), p199.data_ptr())
    del g49
    r84 = p14.view((4, 16)); del p14
    r86 = p28.view((4, 16)); del p28
    p89 = _empty((4, 16), torch.float32, (16, 1))
    p94 = _empty((4, 16), torch.float32, (16, 1))
    k5(p81.data_ptr(), r84.data_ptr(), p77.data_ptr(), r86.data_ptr(), arg34.data_ptr(), p89.data_ptr(), p94.data_ptr())
    p107 = _empty((4, 8), torch.float32, (8, 1))
    r96 = _empty((4, 8), torch.float32, (8, 1))
    k6(p89.data_ptr(), p94.data_ptr(), r96.data_ptr(), arg71.data_ptr(), arg70.data_ptr(), p107.data_ptr())
    p1536 = p81.view((4, 1024, 8, 2)); del p81
    k7(p77.data_ptr(), arg70.data_ptr(), arg34.data_ptr(), arg69.data_ptr(), p107.data_ptr(), arg71.data_ptr(), r96.data_ptr(), p1536.data_ptr())
    del arg34
    del p77
    del r96
    r158 = _empty((8, 2), torch.float32, (2, 1))
    k8(r84.data_ptr(), r86.data_ptr(), arg71.data_ptr(), arg70.data_ptr(), r158.data_ptr())
    del r84
    r160 = _empty((16,), torch.float32, (1,))
    k9(r86.data_ptr(), r160.data_ptr())
    del r86
    ext204 = _op1(_as_strided(p1536, (4, 16, 32, 32), (16384, 1, 512, 16), 0), p199.permute((0, 3, 1, 2)), p202.permute((0, 3, 1, 2)), [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g205 = _layout(ext204[0], (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3)); g206 = _layout(ext204[1], (16, 16, 3, 3), (144, 1, 48, 16), (0, 1, 2, 3)); g207 = _layout(ext204[2], (16,), (1,), (0,))
    del ext204
    p208 = p202.view((16, 16, 3, 3)); del p202
    k11(g206.data_ptr(), p208.data_ptr())
    del g206
    p233 = _reuse(arg69, (4, 32, 32, 16), torch.float32); del arg69
    p237 = p1536.view((4, 32, 32, 16)); del p1536
    p1242 = p199; del p199
    k12(g205.data_ptr(), arg66.data_ptr(), p167.data_ptr(), p181.data_ptr(), p233.data_ptr(), p237.data_ptr(), arg41.data_ptr(), p1210.data_ptr(), p1224.data_ptr(), p1242.data_ptr())
    del g205
    r240 = p167.view((4, 16)); del p167
    r242 = p181.view((4, 16)); del p181
    p245 = p89; del p89
    p250 = p94; del p94
    k13(p237.data_ptr(), r240.data_ptr(), p233.data_ptr(), r242.data_ptr(), arg31.data_ptr(), p245.data_ptr(), p250.data_ptr())
    p263 = _reuse(arg70, (4, 8), torch.float32); del arg70
    r252 = _reuse(arg71, (4, 8), torch.float32); del arg71
    k14(p245.data_ptr(), p250.data_ptr(), r252.data_ptr(), arg68.data_ptr(), arg67.data_ptr(), p263.data_ptr())
    p1538 = p237.view((4, 1024, 8, 2)); del p237
    k15(p233.data_ptr(), arg67.data_ptr(), arg31.data_ptr(), arg66.data_ptr(), p263.data_ptr(), arg68.data_ptr(), r252.data_ptr(), p1538.data_ptr())
    del arg31
    del arg66
    del p233
    del r252
    r314 = _empty((8, 2), torch.float32, (2, 1))
    k16(r240.data_ptr(), r242.data_ptr(), arg68.data_ptr(), arg67.data_ptr(), r314.data_ptr())
    r316 = _empty((16,), torch.float32, (1,))
    k17(r242.data_ptr(), r316.data_ptr())
    ext320 = _op2(_as_strided(p1538, (4, 16, 32, 32), (16384, 1, 512, 16), 0), arg65, p318.permute((0, 3, 1, 2)), [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g321 = _layout(ext320[0], (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3)); g322 = _layout(ext320[1], (16, 16, 3, 3), (144, 1, 48, 16), (0, 1, 2, 3)); g323 = _layout(ext320[2], (16,), (1,), (0,))
    del p1538
    del arg65
    del ext320
    p324 = p318.view((16, 16, 3, 3)); del p318
    k18(g322.data_ptr(), p324.data_ptr())
    del g322
    p331 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    p345 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    p487 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    p501 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    p886 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    p900 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    p1046 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    p1060 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    k19(arg63.data_ptr(), arg27.data_ptr(), p331.data_ptr(), arg64.data_ptr(), arg28.data_ptr(), p345.data_ptr(), arg60.data_ptr(), arg24.data_ptr(), p487.data_ptr(), arg61.data_ptr(), arg25.data_ptr(), p501.data_ptr(), arg49.data_ptr(), arg13.data_ptr(), p886.data_ptr(), arg50.data_ptr(), arg14.data_ptr(), p900.data_ptr(), arg46.data_ptr(), arg10.data_ptr(), p1046.data_ptr(), arg47.data_ptr(), arg11.data_ptr(), p1060.data_ptr())
    del arg25
    del arg11
    del arg28
    del arg14
    p363 = _empty((4, 16, 16, 32), torch.float32, (8192, 512, 32, 1))
    k20(arg62.data_ptr(), p331.data_ptr(), p345.data_ptr(), p363.data_ptr())
    ext368 = _op3(g321, p363.permute((0, 3, 1, 2)), p366.permute((0, 3, 1, 2)), [16], [2, 2], [0, 0], [1, 1], True, [0, 0], 1, [True, True, True]); g369 = _layout(ext368[0], (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3)); g370 = _layout(ext368[1], (32, 16, 2, 2), (64, 1, 32, 16), (0, 1, 2, 3)); g371 = _layout(ext368[2], (16,), (1,), (0,))
    del ext368
    p372 = p366.view((32, 16, 2, 2)); del p366
    k22(g370.data_ptr(), p372.data_ptr())
    del g370
    p397 = p363; del p363
    p401 = _empty((4, 16, 16, 32), torch.float32, (8192, 512, 32, 1))
    p519 = _empty((4, 16, 16, 32), torch.float32, (8192, 512, 32, 1))
    k23(g369.data_ptr(), arg62.data_ptr(), p331.data_ptr(), p345.data_ptr(), p397.data_ptr(), p401.data_ptr(), arg59.data_ptr(), p487.data_ptr(), p501.data_ptr(), p519.data_ptr())
    del g369
    r404 = p331.view((4, 32)); del p331
    r406 = p345.view((4, 32)); del p345
    p409 = _empty((4, 32), torch.float32, (32, 1))
    p414 = _empty((4, 32), torch.float32, (32, 1))
    k24(p401.data_ptr(), r404.data_ptr(), p397.data_ptr(), r406.data_ptr(), arg27.data_ptr(), p409.data_ptr(), p414.data_ptr())
    p427 = _reuse(arg67, (4, 8), torch.float32); del arg67
    r416 = _reuse(arg68, (4, 8), torch.float32); del arg68
    k25(p409.data_ptr(), p414.data_ptr(), r416.data_ptr(), arg64.data_ptr(), arg63.data_ptr(), p427.data_ptr())
    p1540 = p401.view((4, 256, 8, 4)); del p401
    k26(p397.data_ptr(), arg63.data_ptr(), arg27.data_ptr(), arg62.data_ptr(), p427.data_ptr(), arg64.data_ptr(), r416.data_ptr(), p1540.data_ptr())
    del arg27
    del r416
    r478 = p107.view((8, 4)); del p107
    k27(r404.data_ptr(), r406.data_ptr(), arg64.data_ptr(), arg63.data_ptr(), r478.data_ptr())
    del r404
    r480 = _reuse(arg63, (32,), torch.float32); del arg63
    k28(r406.data_ptr(), r480.data_ptr())
    del r406
    ext524 = _op4(_as_strided(p1540, (4, 32, 16, 16), (8192, 1, 512, 32), 0), p519.permute((0, 3, 1, 2)), p522.permute((0, 3, 1, 2)), [32], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g525 = _layout(ext524[0], (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3)); g526 = _layout(ext524[1], (32, 32, 3, 3), (288, 1, 96, 32), (0, 1, 2, 3)); g527 = _layout(ext524[2], (32,), (1,), (0,))
    del ext524
    p528 = p522.view((32, 32, 3, 3)); del p522
    k30(g526.data_ptr(), p528.data_ptr())
    del g526
    p553 = _reuse(arg62, (4, 16, 16, 32), torch.float32); del arg62
    p557 = p1540.view((4, 16, 16, 32)); del p1540
    p918 = p397; del p397
    k31(g525.data_ptr(), arg59.data_ptr(), p487.data_ptr(), p501.data_ptr(), p553.data_ptr(), p557.data_ptr(), arg48.data_ptr(), p886.data_ptr(), p900.data_ptr(), p918.data_ptr())
    del g525
    r560 = p409; del p409
    r562 = p414; del p414
    p565 = p487.view((4, 32)); del p487
    p570 = p501.view((4, 32)); del p501
    k32(p557.data_ptr(), r560.data_ptr(), p553.data_ptr(), r562.data_ptr(), arg24.data_ptr(), p565.data_ptr(), p570.data_ptr())
    del p557
    p583 = _reuse(arg64, (4, 8), torch.float32); del arg64
    r572 = p263; del p263
    k33(p565.data_ptr(), p570.data_ptr(), r572.data_ptr(), arg61.data_ptr(), arg60.data_ptr(), p583.data_ptr())
    p1542 = p519.view((4, 256, 8, 4)); del p519
    k34(p553.data_ptr(), arg60.data_ptr(), arg24.data_ptr(), arg59.data_ptr(), p583.data_ptr(), arg61.data_ptr(), r572.data_ptr(), p1542.data_ptr())
    del arg24
    del arg59
    del p553
    del r572
    r634 = p427.view((8, 4)); del p427
    k35(r560.data_ptr(), r562.data_ptr(), arg61.data_ptr(), arg60.data_ptr(), r634.data_ptr())
    del r560
    r636 = _reuse(arg60, (32,), torch.float32); del arg60
    k36(r562.data_ptr(), r636.data_ptr())
    del r562
    ext640 = _op5(_as_strided(p1542, (4, 32, 16, 16), (8192, 1, 512, 32), 0), arg58, p638.permute((0, 3, 1, 2)), [32], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g641 = _layout(ext640[0], (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3)); g642 = _layout(ext640[1], (32, 32, 3, 3), (288, 1, 96, 32), (0, 1, 2, 3)); g643 = _layout(ext640[2], (32,), (1,), (0,))
    del p1542
    del ext640
    p644 = p638.view((32, 32, 3, 3)); del p638
    k37(g642.data_ptr(), p644.data_ptr())
    del g642
    p651 = _empty((4, 8, 8, 1), torch.float32, (64, 8, 1, 1))
    p662 = _empty((4, 8, 8, 1), torch.float32, (64, 8, 1, 1))
    p778 = _empty((4, 8, 8, 1), torch.float32, (64, 8, 1, 1))
    p789 = _empty((4, 8, 8, 1), torch.float32, (64, 8, 1, 1))
    k38(arg56.data_ptr(), arg20.data_ptr(), p651.data_ptr(), arg57.data_ptr(), arg21.data_ptr(), p662.data_ptr(), arg53.data_ptr(), arg17.data_ptr(), p778.data_ptr(), arg54.data_ptr(), arg18.data_ptr(), p789.data_ptr())
    del arg21
    del arg18
    p671 = _empty((4, 8, 8, 64), torch.float32, (4096, 512, 64, 1))
    k39(arg55.data_ptr(), p651.data_ptr(), p662.data_ptr(), p671.data_ptr())
    ext676 = _op6(g641, p671.permute((0, 3, 1, 2)), p674.permute((0, 3, 1, 2)), [32], [2, 2], [0, 0], [1, 1], True, [0, 0], 1, [True, True, True]); g677 = _layout(ext676[0], (4, 64, 8, 8), (4096, 1, 512, 64), (0, 1, 2, 3)); g678 = _layout(ext676[1], (64, 32, 2, 2), (128, 1, 64, 32), (0, 1, 2, 3)); g679 = _layout(ext676[2], (32,), (1,), (0,))
    del ext676
    p680 = p674.view((64, 32, 2, 2)); del p674
    k41(g678.data_ptr(), p680.data_ptr())
    del g678
    p693 = p671; del p671
    p697 = _empty((4, 8, 8, 64), torch.float32, (4096, 512, 64, 1))
    k42(g677.data_ptr(), arg55.data_ptr(), p651.data_ptr(), p662.data_ptr(), p693.data_ptr(), p697.data_ptr())
    del g677
    r700 = p651.view((4, 64)); del p651
    r702 = p662.view((4, 64)); del p662
    p705 = _empty((4, 64), torch.float32, (64, 1))
    p710 = _empty((4, 64), torch.float32, (64, 1))
    k43(p697.data_ptr(), r700.data_ptr(), p693.data_ptr(), r702.data_ptr(), arg20.data_ptr(), p705.data_ptr(), p710.data_ptr())
    p723 = _reuse(arg61, (4, 8), torch.float32); del arg61
    r712 = p583; del p583
    k44(p705.data_ptr(), p710.data_ptr(), r712.data_ptr(), arg57.data_ptr(), arg56.data_ptr(), p723.data_ptr())
    p758 = arg55.view((4, 8, 8, 64))
    k45(p693.data_ptr(), arg56.data_ptr(), arg20.data_ptr(), arg55.data_ptr(), p723.data_ptr(), arg57.data_ptr(), r712.data_ptr(), p758.data_ptr())
    del arg20
    del arg55
    del r712
    r769 = p245.view((8, 8)); del p245
    k46(r700.data_ptr(), r702.data_ptr(), arg57.data_ptr(), arg56.data_ptr(), r769.data_ptr())
    del r700
    r771 = p250.view((64,)); del p250
    k47(r702.data_ptr(), r771.data_ptr())
    del r702
    p796 = p693.view((4, 64, 8, 8)); del p693
    k48(arg52.data_ptr(), p778.data_ptr(), p789.data_ptr(), p796.data_ptr())
    ext797 = _op7(_as_strided(p758, (4, 64, 8, 8), (4096, 64, 8, 1), 0), p796, arg19, [64], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g798 = _layout(ext797[0], (4, 64, 8, 8), (4096, 64, 8, 1), (0, 1, 2, 3)); g799 = _layout(ext797[1], (64, 64, 3, 3), (576, 9, 3, 1), (0, 1, 2, 3)); g800 = _layout(ext797[2], (64,), (1,), (0,))
    del p796
    del arg19
    del ext797
    p808 = p697.view((4, 64, 8, 8)); del p697
    p809 = p758.view((4, 64, 8, 8)); del p758
    k49(g798.data_ptr(), arg52.data_ptr(), p778.data_ptr(), p789.data_ptr(), p808.data_ptr(), p809.data_ptr())
    del g798
    r811 = p705; del p705
    r813 = p710; del p710
    p816 = p778.view((4, 64)); del p778
    p821 = p789.view((4, 64)); del p789
    k50(p809.data_ptr(), r811.data_ptr(), p808.data_ptr(), r813.data_ptr(), arg17.data_ptr(), p816.data_ptr(), p821.data_ptr())
    del p809
    p834 = _reuse(arg56, (4, 8), torch.float32); del arg56
    r823 = _reuse(arg57, (4, 8), torch.float32); del arg57
    k51(p816.data_ptr(), p821.data_ptr(), r823.data_ptr(), arg54.data_ptr(), arg53.data_ptr(), p834.data_ptr())
    del p816
    del p821
    p859 = arg52.view((4, 8, 8, 64))
    k52(p808.data_ptr(), arg53.data_ptr(), arg17.data_ptr(), arg52.data_ptr(), p834.data_ptr(), arg54.data_ptr(), r823.data_ptr(), p859.data_ptr())
    del arg17
    del arg52
    del p808
    del r823
    r870 = r240.view((8, 8)); del r240
    k53(r811.data_ptr(), r813.data_ptr(), arg54.data_ptr(), arg53.data_ptr(), r870.data_ptr())
    del r811
    r872 = r242.view((64,)); del r242
    k54(r813.data_ptr(), r872.data_ptr())
    del r813
    ext873 = _op8(_as_strided(p859, (4, 64, 8, 8), (4096, 64, 8, 1), 0), arg51, arg16, [64], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g874 = _layout(ext873[0], (4, 64, 8, 8), (4096, 64, 8, 1), (0, 1, 2, 3)); g875 = _layout(ext873[1], (64, 64, 3, 3), (576, 9, 3, 1), (0, 1, 2, 3)); g876 = _layout(ext873[2], (64,), (1,), (0,))
    del p859
    del arg16
    del ext873
    p878 = _reuse(arg51, (4, 8, 8, 64), torch.float32); del arg51
    k55(g874.data_ptr(), p878.data_ptr())
    del g874
    ext923 = _op9(p878.permute((0, 3, 1, 2)), p918.permute((0, 3, 1, 2)), p921.permute((0, 3, 1, 2)), [64], [2, 2], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g924 = _layout(ext923[0], (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3)); g925 = _layout(ext923[1], (64, 32, 3, 3), (288, 1, 96, 32), (0, 1, 2, 3)); g926 = _layout(ext923[2], (64,), (1,), (0,))
    del p878
    del ext923
    p927 = p921.view((64, 32, 3, 3)); del p921
    k57(g925.data_ptr(), p927.data_ptr())
    del g925
    p956 = _reuse(arg58, (4, 16, 16, 32), torch.float32); del arg58
    p960 = p918; del p918
    p1078 = _empty((4, 16, 16, 32), torch.float32, (8192, 512, 32, 1))
    k58(g641.data_ptr(), g924.data_ptr(), arg48.data_ptr(), p886.data_ptr(), p900.data_ptr(), p956.data_ptr(), p960.data_ptr(), arg45.data_ptr(), p1046.data_ptr(), p1060.data_ptr(), p1078.data_ptr())
    del g641
    del g924
    r963 = p565; del p565
    r965 = p570; del p570
    p968 = p886.view((4, 32)); del p886
    p973 = p900.view((4, 32)); del p900
    k59(p960.data_ptr(), r963.data_ptr(), p956.data_ptr(), r965.data_ptr(), arg13.data_ptr(), p968.data_ptr(), p973.data_ptr())
    p986 = _reuse(arg53, (4, 8), torch.float32); del arg53
    r975 = _reuse(arg54, (4, 8), torch.float32); del arg54
    k60(p968.data_ptr(), p973.data_ptr(), r975.data_ptr(), arg50.data_ptr(), arg49.data_ptr(), p986.data_ptr())
    p1544 = p960.view((4, 256, 8, 4)); del p960
    k61(p956.data_ptr(), arg49.data_ptr(), arg13.data_ptr(), arg48.data_ptr(), p986.data_ptr(), arg50.data_ptr(), r975.data_ptr(), p1544.data_ptr())
    del arg13
    del p956
    del p986
    del r975
    r1037 = p723.view((8, 4)); del p723
    k62(r963.data_ptr(), r965.data_ptr(), arg50.data_ptr(), arg49.data_ptr(), r1037.data_ptr())
    del r963
    r1039 = _reuse(arg49, (32,), torch.float32); del arg49
    k63(r965.data_ptr(), r1039.data_ptr())
    del r965
    ext1083 = _op10(_as_strided(p1544, (4, 32, 16, 16), (8192, 1, 512, 32), 0), p1078.permute((0, 3, 1, 2)), p1081.permute((0, 3, 1, 2)), [32], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g1084 = _layout(ext1083[0], (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3)); g1085 = _layout(ext1083[1], (32, 32, 3, 3), (288, 1, 96, 32), (0, 1, 2, 3)); g1086 = _layout(ext1083[2], (32,), (1,), (0,))
    del p1544
    del ext1083
    p1087 = p1081.view((32, 32, 3, 3)); del p1081
    k64(g1085.data_ptr(), p1087.data_ptr())
    del g1085
    p1112 = _reuse(arg48, (4, 16, 16, 32), torch.float32); del arg48
    p1116 = p1078; del p1078
    k65(g1084.data_ptr(), arg45.data_ptr(), p1046.data_ptr(), p1060.data_ptr(), p1112.data_ptr(), p1116.data_ptr())
    del g1084
    r1119 = p1046.view((4, 32)); del p1046
    r1121 = p1060.view((4, 32)); del p1060
    p1124 = p968; del p968
    p1129 = p973; del p973
    k66(p1116.data_ptr(), r1119.data_ptr(), p1112.data_ptr(), r1121.data_ptr(), arg10.data_ptr(), p1124.data_ptr(), p1129.data_ptr())
    p1142 = _reuse(arg50, (4, 8), torch.float32); del arg50
    r1131 = p834; del p834
    k67(p1124.data_ptr(), p1129.data_ptr(), r1131.data_ptr(), arg47.data_ptr(), arg46.data_ptr(), p1142.data_ptr())
    del p1124
    del p1129
    p1546 = p1116.view((4, 256, 8, 4)); del p1116
    k68(p1112.data_ptr(), arg46.data_ptr(), arg10.data_ptr(), arg45.data_ptr(), p1142.data_ptr(), arg47.data_ptr(), r1131.data_ptr(), p1546.data_ptr())
    del arg10
    del arg45
    del p1112
    del r1131
    r1193 = p1142.view((8, 4)); del p1142
    k69(r1119.data_ptr(), r1121.data_ptr(), arg47.data_ptr(), arg46.data_ptr(), r1193.data_ptr())
    del arg47
    del r1119
    r1195 = _reuse(arg46, (32,), torch.float32); del arg46
    k70(r1121.data_ptr(), r1195.data_ptr())
    del r1121
    ext1199 = _op11(_as_strided(p1546, (4, 32, 16, 16), (8192, 1, 512, 32), 0), arg44, p1197.permute((0, 3, 1, 2)), [32], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g1200 = _layout(ext1199[0], (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3)); g1201 = _layout(ext1199[1], (32, 32, 3, 3), (288, 1, 96, 32), (0, 1, 2, 3)); g1202 = _layout(ext1199[2], (32,), (1,), (0,))
    del p1546
    del arg44
    del ext1199
    p1203 = p1197.view((32, 32, 3, 3)); del p1197
    k71(g1201.data_ptr(), p1203.data_ptr())
    del g1201
    ext1247 = _op12(g1200, p1242.permute((0, 3, 1, 2)), p1245.permute((0, 3, 1, 2)), [32], [2, 2], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g1248 = _layout(ext1247[0], (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3)); g1249 = _layout(ext1247[1], (32, 16, 3, 3), (144, 1, 48, 16), (0, 1, 2, 3)); g1250 = _layout(ext1247[2], (32,), (1,), (0,))
    del g1200
    del ext1247
    p1251 = p1245.view((32, 16, 3, 3)); del p1245
    k73(g1249.data_ptr(), p1251.data_ptr())
    del g1249
    p1280 = p1242; del p1242
    p1284 = _empty((4, 32, 32, 16), torch.float32, (16384, 512, 16, 1))
    p1402 = _empty((4, 32, 32, 16), torch.float32, (16384, 512, 16, 1))
    k74(g321.data_ptr(), g1248.data_ptr(), arg41.data_ptr(), p1210.data_ptr(), p1224.data_ptr(), p1280.data_ptr(), p1284.data_ptr(), arg38.data_ptr(), p1370.data_ptr(), p1384.data_ptr(), p1402.data_ptr())
    del g321
    del g1248
    r1287 = p1210.view((4, 16)); del p1210
    r1289 = p1224.view((4, 16)); del p1224
    p1292 = _empty((4, 16), torch.float32, (16, 1))
    p1297 = _empty((4, 16), torch.float32, (16, 1))
    k75(p1284.data_ptr(), r1287.data_ptr(), p1280.data_ptr(), r1289.data_ptr(), arg6.data_ptr(), p1292.data_ptr(), p1297.data_ptr())
    p1310 = _empty((4, 8), torch.float32, (8, 1))
    r1299 = _empty((4, 8), torch.float32, (8, 1))
    k76(p1292.data_ptr(), p1297.data_ptr(), r1299.data_ptr(), arg43.data_ptr(), arg42.data_ptr(), p1310.data_ptr())
    p1548 = p1284.view((4, 1024, 8, 2)); del p1284
    k77(p1280.data_ptr(), arg42.data_ptr(), arg6.data_ptr(), arg41.data_ptr(), p1310.data_ptr(), arg43.data_ptr(), r1299.data_ptr(), p1548.data_ptr())
    del arg6
    del p1280
    del p1310
    del r1299
    r1361 = _empty((8, 2), torch.float32, (2, 1))
    k78(r1287.data_ptr(), r1289.data_ptr(), arg43.data_ptr(), arg42.data_ptr(), r1361.data_ptr())
    del r1287
    r1363 = _empty((16,), torch.float32, (1,))
    k79(r1289.data_ptr(), r1363.data_ptr())
    del r1289
    ext1407 = _op13(_as_strided(p1548, (4, 16, 32, 32), (16384, 1, 512, 16), 0), p1402.permute((0, 3, 1, 2)), p1405.permute((0, 3, 1, 2)), [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g1408 = _layout(ext1407[0], (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3)); g1409 = _layout(ext1407[1], (16, 16, 3, 3), (144, 1, 48, 16), (0, 1, 2, 3)); g1410 = _layout(ext1407[2], (16,), (1,), (0,))
    del p1548
    del ext1407
    p1411 = p1405.view((16, 16, 3, 3)); del p1405
    k80(g1409.data_ptr(), p1411.data_ptr())
    del g1409
    p1436 = _reuse(arg41, (4, 32, 32, 16), torch.float32); del arg41
    p1440 = p1402; del p1402
    k81(g1408.data_ptr(), arg38.data_ptr(), p1370.data_ptr(), p1384.data_ptr(), p1436.data_ptr(), p1440.data_ptr())
    del g1408
    r1443 = p1292; del p1292
    r1445 = p1297; del p1297
    p1448 = p1370.view((4, 16)); del p1370
    p1453 = p1384.view((4, 16)); del p1384
    k82(p1440.data_ptr(), r1443.data_ptr(), p1436.data_ptr(), r1445.data_ptr(), arg3.data_ptr(), p1448.data_ptr(), p1453.data_ptr())
    p1466 = _reuse(arg42, (4, 8), torch.float32); del arg42
    r1455 = _reuse(arg43, (4, 8), torch.float32); del arg43
    k83(p1448.data_ptr(), p1453.data_ptr(), r1455.data_ptr(), arg40.data_ptr(), arg39.data_ptr(), p1466.data_ptr())
    del p1448
    del p1453
    p1550 = p1440.view((4, 1024, 8, 2)); del p1440
    k84(p1436.data_ptr(), arg39.data_ptr(), arg3.data_ptr(), arg38.data_ptr(), p1466.data_ptr(), arg40.data_ptr(), r1455.data_ptr(), p1550.data_ptr())
    del arg3
    del arg38
    del p1436
    del p1466
    del r1455
    r1517 = _empty((8, 2), torch.float32, (2, 1))
    k85(r1443.data_ptr(), r1445.data_ptr(), arg40.data_ptr(), arg39.data_ptr(), r1517.data_ptr())
    del arg40
    del arg39
    del r1443
    r1519 = _empty((16,), torch.float32, (1,))
    k86(r1445.data_ptr(), r1519.data_ptr())
    del r1445
    ext1523 = _op14(_as_strided(p1550, (4, 16, 32, 32), (16384, 1, 512, 16), 0), arg37, p1521.permute((0, 3, 1, 2)), [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]); g1524 = _layout(ext1523[0], (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3)); g1525 = _layout(ext1523[1], (16, 16, 3, 3), (144, 1, 48, 16), (0, 1, 2, 3)); g1526 = _layout(ext1523[2], (16,), (1,), (0,))
    del p1550
    del arg37
    del ext1523
    p1527 = p1521.view((16, 16, 3, 3)); del p1521
    k87(g1525.data_ptr(), p1527.data_ptr())
    del g1525
    ext1531 = _op15(g1524, arg1, p1529.permute((0, 3, 1, 2)), [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, True]); g1532 = _layout(ext1531[1], (16, 3, 3, 3), (27, 1, 9, 3), (0, 1, 2, 3)); g1533 = _layout(ext1531[2], (16,), (1,), (0,))
    del g1524
    del arg1
    del ext1531
    p1534 = p1529; del p1529
    k89(g1532.data_ptr(), p1534.data_ptr())
    del g1532
    return [p1534, g1533, None, p1527, g1526, _as_strided(r1517, (16,), (1,), 0), r1519, p1411, g1410, _as_strided(r1361, (16,), (1,), 0), r1363, p1251, g1250, p1203, g1202, _as_strided(r1193, (32,), (1,), 0), r1195, p1087, g1086, _as_strided(r1037, (32,), (1,), 0), r1039, p927, g926, g875, g876, _as_strided(r870, (64,), (1,), 0), r872, g799, g800, _as_strided(r769, (64,), (1,), 0), r771, p680, g679, p644, g643, _as_strided(r634, (32,), (1,), 0), r636, p528, g527, _as_strided(r478, (32,), (1,), 0), r480, p372, g371, p324, g323, _as_strided(r314, (16,), (1,), 0), r316, p208, g207, _as_strided(r158, (16,), (1,), 0), r160, p52, g51, None]
