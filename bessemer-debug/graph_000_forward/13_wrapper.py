def call(args):
    # planned peak: 2918912 bytes of buffers allocated here, at step 56
    (arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9, arg10, arg11, arg12, arg13, arg14, arg15, arg16, arg17, arg18, arg19, arg20, arg21, arg22, arg23, arg24, arg25, arg26, arg27, arg28, arg29, arg30, arg31, arg32, arg33, arg34, arg35, arg36, arg37, arg38, arg39, arg40, arg41, arg42, arg43, arg44, arg45, arg46, arg47, arg48, arg49, arg50, arg51, arg52, arg53,) = args
    args.clear()
    if (arg0.stride(), arg1.stride(), arg2.stride(), arg3.stride(), arg4.stride(), arg5.stride(), arg6.stride(), arg7.stride(), arg8.stride(), arg9.stride(), arg10.stride(), arg11.stride(), arg12.stride(), arg13.stride(), arg14.stride(), arg15.stride(), arg16.stride(), arg17.stride(), arg18.stride(), arg19.stride(), arg20.stride(), arg21.stride(), arg22.stride(), arg23.stride(), arg24.stride(), arg25.stride(), arg26.stride(), arg27.stride(), arg28.stride(), arg29.stride(), arg30.stride(), arg31.stride(), arg32.stride(), arg33.stride(), arg34.stride(), arg35.stride(), arg36.stride(), arg37.stride(), arg38.stride(), arg39.stride(), arg40.stride(), arg41.stride(), arg42.stride(), arg43.stride(), arg44.stride(), arg45.stride(), arg46.stride(), arg47.stride(), arg48.stride(), arg49.stride(), arg50.stride(), arg51.stride(), arg52.stride(), arg53.stride(),) != ((27, 9, 3, 1), (1,), (3072, 1024, 32, 1), (144, 9, 3, 1), (1,), (1,), (1,), (144, 9, 3, 1), (1,), (1,), (1,), (144, 9, 3, 1), (1,), (288, 9, 3, 1), (1,), (1,), (1,), (288, 9, 3, 1), (1,), (1,), (1,), (288, 9, 3, 1), (1,), (576, 9, 3, 1), (1,), (1,), (1,), (576, 9, 3, 1), (1,), (1,), (1,), (128, 4, 2, 1), (1,), (288, 9, 3, 1), (1,), (1,), (1,), (288, 9, 3, 1), (1,), (1,), (1,), (64, 4, 2, 1), (1,), (144, 9, 3, 1), (1,), (1,), (1,), (144, 9, 3, 1), (1,), (1,), (1,), (16, 1, 1, 1), (1,), (3072, 1024, 32, 1),):
        arg0 = _layout(arg0, (16, 3, 3, 3), (27, 9, 3, 1), (0, 1, 2, 3))
        arg1 = _layout(arg1, (16,), (1,), (0,))
        arg2 = _layout(arg2, (4, 3, 32, 32), (3072, 1024, 32, 1), (0, 1, 2, 3))
        arg3 = _layout(arg3, (16, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg4 = _layout(arg4, (16,), (1,), (0,))
        arg5 = _layout(arg5, (16,), (1,), (0,))
        arg6 = _layout(arg6, (16,), (1,), (0,))
        arg7 = _layout(arg7, (16, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg8 = _layout(arg8, (16,), (1,), (0,))
        arg9 = _layout(arg9, (16,), (1,), (0,))
        arg10 = _layout(arg10, (16,), (1,), (0,))
        arg11 = _layout(arg11, (32, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg12 = _layout(arg12, (32,), (1,), (0,))
        arg13 = _layout(arg13, (32, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg14 = _layout(arg14, (32,), (1,), (0,))
        arg15 = _layout(arg15, (32,), (1,), (0,))
        arg16 = _layout(arg16, (32,), (1,), (0,))
        arg17 = _layout(arg17, (32, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg18 = _layout(arg18, (32,), (1,), (0,))
        arg19 = _layout(arg19, (32,), (1,), (0,))
        arg20 = _layout(arg20, (32,), (1,), (0,))
        arg21 = _layout(arg21, (64, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg22 = _layout(arg22, (64,), (1,), (0,))
        arg23 = _layout(arg23, (64, 64, 3, 3), (576, 9, 3, 1), (0, 1, 2, 3))
        arg24 = _layout(arg24, (64,), (1,), (0,))
        arg25 = _layout(arg25, (64,), (1,), (0,))
        arg26 = _layout(arg26, (64,), (1,), (0,))
        arg27 = _layout(arg27, (64, 64, 3, 3), (576, 9, 3, 1), (0, 1, 2, 3))
        arg28 = _layout(arg28, (64,), (1,), (0,))
        arg29 = _layout(arg29, (64,), (1,), (0,))
        arg30 = _layout(arg30, (64,), (1,), (0,))
        arg31 = _layout(arg31, (64, 32, 2, 2), (128, 4, 2, 1), (0, 1, 2, 3))
        arg32 = _layout(arg32, (32,), (1,), (0,))
        arg33 = _layout(arg33, (32, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg34 = _layout(arg34, (32,), (1,), (0,))
        arg35 = _layout(arg35, (32,), (1,), (0,))
        arg36 = _layout(arg36, (32,), (1,), (0,))
        arg37 = _layout(arg37, (32, 32, 3, 3), (288, 9, 3, 1), (0, 1, 2, 3))
        arg38 = _layout(arg38, (32,), (1,), (0,))
        arg39 = _layout(arg39, (32,), (1,), (0,))
        arg40 = _layout(arg40, (32,), (1,), (0,))
        arg41 = _layout(arg41, (32, 16, 2, 2), (64, 4, 2, 1), (0, 1, 2, 3))
        arg42 = _layout(arg42, (16,), (1,), (0,))
        arg43 = _layout(arg43, (16, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg44 = _layout(arg44, (16,), (1,), (0,))
        arg45 = _layout(arg45, (16,), (1,), (0,))
        arg46 = _layout(arg46, (16,), (1,), (0,))
        arg47 = _layout(arg47, (16, 16, 3, 3), (144, 9, 3, 1), (0, 1, 2, 3))
        arg48 = _layout(arg48, (16,), (1,), (0,))
        arg49 = _layout(arg49, (16,), (1,), (0,))
        arg50 = _layout(arg50, (16,), (1,), (0,))
        arg51 = _layout(arg51, (3, 16, 1, 1), (16, 1, 1, 1), (0, 1))
        arg52 = _layout(arg52, (3,), (1,), (0,))
        arg53 = _layout(arg53, (4, 3, 32, 32), (3072, 1024, 32, 1), (0, 1, 2, 3))
    p4 = _empty((4, 32, 32, 3), torch.float32, (3072, 96, 3, 1))
    k1(arg2.data_ptr(), p4.data_ptr())
    del arg2
    p1 = _empty((16, 3, 3, 3), torch.float32, (27, 9, 3, 1))
    k0(arg0.data_ptr(), p1.data_ptr())
    p7 = _empty((16, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    p10 = _empty((16, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    p37 = _empty((16, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    p40 = _empty((16, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    k2(arg3.data_ptr(), p7.data_ptr(), arg7.data_ptr(), p10.data_ptr(), arg43.data_ptr(), p37.data_ptr(), arg47.data_ptr(), p40.data_ptr())
    p13 = _empty((32, 3, 3, 16), torch.float32, (144, 48, 16, 1))
    k3(arg11.data_ptr(), p13.data_ptr())
    p16 = _empty((32, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    p19 = _empty((32, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    p28 = _empty((32, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    p31 = _empty((32, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    k4(arg13.data_ptr(), p16.data_ptr(), arg17.data_ptr(), p19.data_ptr(), arg33.data_ptr(), p28.data_ptr(), arg37.data_ptr(), p31.data_ptr())
    p22 = _empty((64, 3, 3, 32), torch.float32, (288, 96, 32, 1))
    k5(arg21.data_ptr(), p22.data_ptr())
    p25 = _empty((64, 2, 2, 32), torch.float32, (128, 64, 32, 1))
    k6(arg31.data_ptr(), p25.data_ptr())
    p34 = _empty((32, 2, 2, 16), torch.float32, (64, 32, 16, 1))
    k7(arg41.data_ptr(), p34.data_ptr())
    ext42 = _layout(_op0(p4.permute((0, 3, 1, 2)), p1.permute((0, 3, 1, 2)), arg1, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
    del p1
    del arg1
    ext43 = _layout(_op1(ext42, p7.permute((0, 3, 1, 2)), arg4, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
    del p7
    del arg4
    p56 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    r55 = _empty((4, 8, 2, 1), torch.float64, (16, 2, 1, 1))
    k8(ext43.data_ptr(), r55.data_ptr(), p56.data_ptr())
    p63 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p76 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p83 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    p89 = _empty((4, 8, 2, 1), torch.float32, (16, 2, 1, 1))
    k9(p56.data_ptr(), p63.data_ptr(), r55.data_ptr(), p76.data_ptr(), arg5.data_ptr(), p83.data_ptr(), arg6.data_ptr(), p89.data_ptr())
    p115 = _empty((4, 32, 32, 16), torch.float32, (16384, 512, 16, 1))
    k10(ext43.data_ptr(), p83.data_ptr(), p89.data_ptr(), p115.data_ptr())
    ext117 = _layout(_op2(p115.permute((0, 3, 1, 2)), p10.permute((0, 3, 1, 2)), arg8, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
    del p10
    del arg8
    p130 = p56; del p56
    r129 = r55; del r55
    k11(ext117.data_ptr(), r129.data_ptr(), p130.data_ptr())
    p137 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p150 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p157 = p83; del p83
    p163 = p89; del p89
    k12(p130.data_ptr(), p137.data_ptr(), r129.data_ptr(), p150.data_ptr(), arg9.data_ptr(), p157.data_ptr(), arg10.data_ptr(), p163.data_ptr())
    p189 = p115; del p115
    k13(ext117.data_ptr(), p157.data_ptr(), p163.data_ptr(), p189.data_ptr())
    ext191 = _layout(_op3(p189.permute((0, 3, 1, 2)), p13.permute((0, 3, 1, 2)), arg12, [2, 2], [1, 1], [1, 1], False, [0, 0], 1), (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
    del p13
    del arg12
    ext192 = _layout(_op4(ext191, p16.permute((0, 3, 1, 2)), arg14, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
    del p16
    del arg14
    p205 = _reuse(r129, (4, 8, 4, 1), torch.float32); del r129
    r204 = _empty((4, 8, 4, 1), torch.float64, (32, 4, 1, 1))
    k14(ext192.data_ptr(), r204.data_ptr(), p205.data_ptr())
    p212 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p225 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p232 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    p238 = _empty((4, 8, 4, 1), torch.float32, (32, 4, 1, 1))
    k15(p205.data_ptr(), p212.data_ptr(), r204.data_ptr(), p225.data_ptr(), arg15.data_ptr(), p232.data_ptr(), arg16.data_ptr(), p238.data_ptr())
    p264 = _empty((4, 16, 16, 32), torch.float32, (8192, 512, 32, 1))
    k16(ext192.data_ptr(), p232.data_ptr(), p238.data_ptr(), p264.data_ptr())
    ext266 = _layout(_op5(p264.permute((0, 3, 1, 2)), p19.permute((0, 3, 1, 2)), arg18, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
    del p19
    del arg18
    p279 = p205; del p205
    r278 = r204; del r204
    k17(ext266.data_ptr(), r278.data_ptr(), p279.data_ptr())
    p286 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p299 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p306 = p232; del p232
    p312 = p238; del p238
    k18(p279.data_ptr(), p286.data_ptr(), r278.data_ptr(), p299.data_ptr(), arg19.data_ptr(), p306.data_ptr(), arg20.data_ptr(), p312.data_ptr())
    p338 = p264; del p264
    k19(ext266.data_ptr(), p306.data_ptr(), p312.data_ptr(), p338.data_ptr())
    ext340 = _layout(_op6(p338.permute((0, 3, 1, 2)), p22.permute((0, 3, 1, 2)), arg22, [2, 2], [1, 1], [1, 1], False, [0, 0], 1), (4, 64, 8, 8), (4096, 1, 512, 64), (0, 1, 2, 3))
    del p22
    del arg22
    p341 = _empty((4, 64, 8, 8), torch.float32, (4096, 64, 8, 1))
    k20(ext340.data_ptr(), p341.data_ptr())
    ext342 = _layout(_op7(p341, arg23, arg24, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 64, 8, 8), (4096, 64, 8, 1), (0, 1, 2, 3))
    del arg24
    p355 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p357 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    k21(ext342.data_ptr(), p355.data_ptr(), p357.data_ptr())
    p364 = _reuse(r278, (4, 8, 8, 1), torch.float32); del r278
    p370 = _empty((4, 8, 8, 1), torch.float32, (64, 8, 1, 1))
    k22(p357.data_ptr(), arg25.data_ptr(), p364.data_ptr(), p355.data_ptr(), arg26.data_ptr(), p370.data_ptr())
    p382 = _reuse(ext340, (4, 64, 8, 8), torch.float32); del ext340
    k23(ext342.data_ptr(), p364.data_ptr(), p370.data_ptr(), p382.data_ptr())
    ext383 = _layout(_op8(p382, arg27, arg28, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 64, 8, 8), (4096, 64, 8, 1), (0, 1, 2, 3))
    del arg28
    p396 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p398 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    k24(ext383.data_ptr(), p396.data_ptr(), p398.data_ptr())
    p405 = p364; del p364
    p411 = p370; del p370
    k25(p398.data_ptr(), arg29.data_ptr(), p405.data_ptr(), p396.data_ptr(), arg30.data_ptr(), p411.data_ptr())
    p425 = p382.view((4, 8, 8, 64)); del p382
    k26(ext383.data_ptr(), p405.data_ptr(), p411.data_ptr(), p425.data_ptr())
    ext427 = _layout(_op9(p425.permute((0, 3, 1, 2)), p25.permute((0, 3, 1, 2)), arg32, [2, 2], [0, 0], [1, 1], True, [0, 0], 1), (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
    del p25
    del p425
    del arg32
    p433 = p338
    k27(ext427.data_ptr(), p338.data_ptr(), p433.data_ptr())
    del p338
    ext435 = _layout(_op10(p433.permute((0, 3, 1, 2)), p28.permute((0, 3, 1, 2)), arg34, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
    del p28
    del arg34
    p448 = p279; del p279
    r447 = _reuse(p405, (4, 8, 4, 1), torch.float64); del p405
    k28(ext435.data_ptr(), r447.data_ptr(), p448.data_ptr())
    p455 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p468 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p475 = p306; del p306
    p481 = p312; del p312
    k29(p448.data_ptr(), p455.data_ptr(), r447.data_ptr(), p468.data_ptr(), arg35.data_ptr(), p475.data_ptr(), arg36.data_ptr(), p481.data_ptr())
    del r447
    p507 = _reuse(ext427, (4, 16, 16, 32), torch.float32); del ext427
    k30(ext435.data_ptr(), p475.data_ptr(), p481.data_ptr(), p507.data_ptr())
    ext509 = _layout(_op11(p507.permute((0, 3, 1, 2)), p31.permute((0, 3, 1, 2)), arg38, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 32, 16, 16), (8192, 1, 512, 32), (0, 1, 2, 3))
    del p31
    del arg38
    p522 = p448; del p448
    r521 = _reuse(p411, (4, 8, 4, 1), torch.float64); del p411
    k31(ext509.data_ptr(), r521.data_ptr(), p522.data_ptr())
    p529 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p542 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p549 = p475; del p475
    p555 = p481; del p481
    k32(p522.data_ptr(), p529.data_ptr(), r521.data_ptr(), p542.data_ptr(), arg39.data_ptr(), p549.data_ptr(), arg40.data_ptr(), p555.data_ptr())
    del r521
    p581 = p507; del p507
    k33(ext509.data_ptr(), p549.data_ptr(), p555.data_ptr(), p581.data_ptr())
    del p555
    ext583 = _layout(_op12(p581.permute((0, 3, 1, 2)), p34.permute((0, 3, 1, 2)), arg42, [2, 2], [0, 0], [1, 1], True, [0, 0], 1), (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
    del p34
    del p581
    del arg42
    p589 = p189
    k34(ext583.data_ptr(), p189.data_ptr(), p589.data_ptr())
    del p189
    ext591 = _layout(_op13(p589.permute((0, 3, 1, 2)), p37.permute((0, 3, 1, 2)), arg44, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
    del p37
    del arg44
    p604 = p130; del p130
    r603 = _reuse(p522, (4, 8, 2, 1), torch.float64); del p522
    k35(ext591.data_ptr(), r603.data_ptr(), p604.data_ptr())
    p611 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p624 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p631 = p157; del p157
    p637 = p163; del p163
    k36(p604.data_ptr(), p611.data_ptr(), r603.data_ptr(), p624.data_ptr(), arg45.data_ptr(), p631.data_ptr(), arg46.data_ptr(), p637.data_ptr())
    del r603
    p663 = _reuse(ext583, (4, 32, 32, 16), torch.float32); del ext583
    k37(ext591.data_ptr(), p631.data_ptr(), p637.data_ptr(), p663.data_ptr())
    ext665 = _layout(_op14(p663.permute((0, 3, 1, 2)), p40.permute((0, 3, 1, 2)), arg48, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), (4, 16, 32, 32), (16384, 1, 512, 16), (0, 1, 2, 3))
    del p40
    del arg48
    p678 = p604; del p604
    r677 = _reuse(p549, (4, 8, 2, 1), torch.float64); del p549
    k38(ext665.data_ptr(), r677.data_ptr(), p678.data_ptr())
    p685 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p698 = _empty((4, 8, 1, 1), torch.float32, (8, 1, 1, 1))
    p705 = p631; del p631
    p711 = p637; del p637
    k39(p678.data_ptr(), p685.data_ptr(), r677.data_ptr(), p698.data_ptr(), arg49.data_ptr(), p705.data_ptr(), arg50.data_ptr(), p711.data_ptr())
    del p678
    del r677
    p737 = p663; del p663
    k40(ext665.data_ptr(), p705.data_ptr(), p711.data_ptr(), p737.data_ptr())
    del p705
    del p711
    ext739 = _layout(_op15(p737.permute((0, 3, 1, 2)), arg51, arg52, [1, 1], [0, 0], [1, 1], False, [0, 0], 1), (4, 3, 32, 32), (3072, 1, 96, 3), (0, 1, 2, 3))
    del p737
    del arg52
    p751 = _empty((), torch.float32, ())
    k41(ext739.data_ptr(), arg53.data_ptr(), p751.data_ptr())
    p759 = _empty((4, 32, 32, 3), torch.float32, (3072, 96, 3, 1))
    k42(ext739.data_ptr(), arg53.data_ptr(), p759.data_ptr())
    del ext739
    del arg53
    return [p751, arg0, p4.permute((0, 3, 1, 2)), arg3, arg5, arg6, arg7, arg9, arg10, arg11, arg13, arg15, arg16, arg17, arg19, arg20, arg21, arg23, arg25, arg26, arg27, arg29, arg30, arg31, arg33, arg35, arg36, arg37, arg39, arg40, arg41, arg43, arg45, arg46, arg47, arg49, arg50, arg51, ext42, ext43, p76, p63, ext117, p150, p137, ext191, ext192, p225, p212, ext266, p299, p286, p341, ext342, p357, p355, ext383, p398, p396, p433.permute((0, 3, 1, 2)), ext435, p468, p455, ext509, p542, p529, p589.permute((0, 3, 1, 2)), ext591, p624, p611, ext665, p698, p685, p759.permute((0, 3, 1, 2))]
