class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[16, 3, 3, 3]", primals_2: "f32[16]", primals_3: "f32[4, 3, 32, 32]", primals_4: "f32[16, 16, 3, 3]", primals_5: "f32[16]", primals_6: "f32[16]", primals_7: "f32[16]", primals_8: "f32[16, 16, 3, 3]", primals_9: "f32[16]", primals_10: "f32[16]", primals_11: "f32[16]", primals_12: "f32[32, 16, 3, 3]", primals_13: "f32[32]", primals_14: "f32[32, 32, 3, 3]", primals_15: "f32[32]", primals_16: "f32[32]", primals_17: "f32[32]", primals_18: "f32[32, 32, 3, 3]", primals_19: "f32[32]", primals_20: "f32[32]", primals_21: "f32[32]", primals_22: "f32[64, 32, 3, 3]", primals_23: "f32[64]", primals_24: "f32[64, 64, 3, 3]", primals_25: "f32[64]", primals_26: "f32[64]", primals_27: "f32[64]", primals_28: "f32[64, 64, 3, 3]", primals_29: "f32[64]", primals_30: "f32[64]", primals_31: "f32[64]", primals_32: "f32[64, 32, 2, 2]", primals_33: "f32[32]", primals_34: "f32[32, 32, 3, 3]", primals_35: "f32[32]", primals_36: "f32[32]", primals_37: "f32[32]", primals_38: "f32[32, 32, 3, 3]", primals_39: "f32[32]", primals_40: "f32[32]", primals_41: "f32[32]", primals_42: "f32[32, 16, 2, 2]", primals_43: "f32[16]", primals_44: "f32[16, 16, 3, 3]", primals_45: "f32[16]", primals_46: "f32[16]", primals_47: "f32[16]", primals_48: "f32[16, 16, 3, 3]", primals_49: "f32[16]", primals_50: "f32[16]", primals_51: "f32[16]", primals_52: "f32[3, 16, 1, 1]", primals_53: "f32[3]", primals_54: "f32[4, 3, 32, 32]"):
        # No stacktrace found for following nodes
        clone_default_1: "f32[16, 3, 3, 3]" = torch.ops.aten.clone.default(primals_1, memory_format = torch.channels_last)
        clone_default: "f32[4, 3, 32, 32]" = torch.ops.aten.clone.default(primals_3, memory_format = torch.channels_last);  primals_3 = None
        clone_default_3: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(primals_4, memory_format = torch.channels_last)
        clone_default_7: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(primals_8, memory_format = torch.channels_last)
        clone_default_11: "f32[32, 16, 3, 3]" = torch.ops.aten.clone.default(primals_12, memory_format = torch.channels_last)
        clone_default_13: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(primals_14, memory_format = torch.channels_last)
        clone_default_17: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(primals_18, memory_format = torch.channels_last)
        clone_default_21: "f32[64, 32, 3, 3]" = torch.ops.aten.clone.default(primals_22, memory_format = torch.channels_last)
        clone_default_25: "f32[64, 32, 2, 2]" = torch.ops.aten.clone.default(primals_32, memory_format = torch.channels_last)
        clone_default_29: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(primals_34, memory_format = torch.channels_last)
        clone_default_33: "f32[32, 32, 3, 3]" = torch.ops.aten.clone.default(primals_38, memory_format = torch.channels_last)
        clone_default_37: "f32[32, 16, 2, 2]" = torch.ops.aten.clone.default(primals_42, memory_format = torch.channels_last)
        clone_default_41: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(primals_44, memory_format = torch.channels_last)
        clone_default_45: "f32[16, 16, 3, 3]" = torch.ops.aten.clone.default(primals_48, memory_format = torch.channels_last)

        # File: /work/main/bessemer/zoo/small.py:115 in forward, code: h = self.stem(pixel_values)
        convolution: "f32[4, 16, 32, 32]" = torch.ops.aten.convolution.default(clone_default, clone_default_1, primals_2, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_1 = primals_2 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        convolution_1: "f32[4, 16, 32, 32]" = torch.ops.aten.convolution.default(convolution, clone_default_3, primals_5, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_3 = primals_5 = None
        view_default: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(convolution_1, [4, 8, 2, 1024])
        var_mean = torch.ops.aten.var_mean.correction(view_default, [2, 3], correction = 0, keepdim = True);  view_default = None
        getitem: "f32[4, 8, 1, 1]" = var_mean[0]
        getitem_1: "f32[4, 8, 1, 1]" = var_mean[1];  var_mean = None
        add: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem, 1e-05)
        rsqrt: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add);  add = None
        view_1: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_6, [1, 8, 2, 1])
        mul: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(rsqrt, view_1);  rsqrt = view_1 = None
        neg: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_1)
        mul_1: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(neg, mul);  neg = None
        view_2: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_7, [1, 8, 2, 1])
        add_1: "f32[4, 8, 2, 1]" = torch.ops.aten.add.Tensor(mul_1, view_2);  mul_1 = view_2 = None
        as_strided: "f32[4, 16]" = torch.ops.aten.view.default(mul, [4, 16]);  mul = None
        as_strided_1: "f32[4, 16]" = torch.ops.aten.view.default(add_1, [4, 16]);  add_1 = None
        unsqueeze: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided, 2);  as_strided = None
        unsqueeze_1: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze, 3);  unsqueeze = None
        unsqueeze_2: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_1, 2);  as_strided_1 = None
        unsqueeze_3: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_2, 3);  unsqueeze_2 = None
        mul_2: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(convolution_1, unsqueeze_1);  unsqueeze_1 = None
        add_2: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_2, unsqueeze_3);  mul_2 = unsqueeze_3 = None
        sigmoid: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_2)
        mul_3: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_2, sigmoid);  add_2 = sigmoid = None
        clone_default_5: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(mul_3, memory_format = torch.channels_last);  mul_3 = None
        convolution_2: "f32[4, 16, 32, 32]" = torch.ops.aten.convolution.default(clone_default_5, clone_default_7, primals_9, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_5 = clone_default_7 = primals_9 = None
        view_default_1: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(convolution_2, [4, 8, 2, 1024])
        var_mean_1 = torch.ops.aten.var_mean.correction(view_default_1, [2, 3], correction = 0, keepdim = True);  view_default_1 = None
        getitem_2: "f32[4, 8, 1, 1]" = var_mean_1[0]
        getitem_3: "f32[4, 8, 1, 1]" = var_mean_1[1];  var_mean_1 = None
        add_3: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_2, 1e-05)
        rsqrt_1: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_3);  add_3 = None
        view_4: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_10, [1, 8, 2, 1])
        mul_4: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(rsqrt_1, view_4);  rsqrt_1 = view_4 = None
        neg_1: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_3)
        mul_5: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(neg_1, mul_4);  neg_1 = None
        view_5: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_11, [1, 8, 2, 1])
        add_4: "f32[4, 8, 2, 1]" = torch.ops.aten.add.Tensor(mul_5, view_5);  mul_5 = view_5 = None
        as_strided_2: "f32[4, 16]" = torch.ops.aten.view.default(mul_4, [4, 16]);  mul_4 = None
        as_strided_3: "f32[4, 16]" = torch.ops.aten.view.default(add_4, [4, 16]);  add_4 = None
        unsqueeze_4: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_2, 2);  as_strided_2 = None
        unsqueeze_5: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_4, 3);  unsqueeze_4 = None
        unsqueeze_6: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_3, 2);  as_strided_3 = None
        unsqueeze_7: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_6, 3);  unsqueeze_6 = None
        mul_6: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(convolution_2, unsqueeze_5);  unsqueeze_5 = None
        add_5: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_6, unsqueeze_7);  mul_6 = unsqueeze_7 = None
        sigmoid_1: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_5)
        mul_7: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_5, sigmoid_1);  add_5 = sigmoid_1 = None
        clone_default_9: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(mul_7, memory_format = torch.channels_last);  mul_7 = None

        # File: /work/main/bessemer/zoo/small.py:121 in forward, code: h = self.downs[i](h)
        convolution_3: "f32[4, 32, 16, 16]" = torch.ops.aten.convolution.default(clone_default_9, clone_default_11, primals_13, [2, 2], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_11 = primals_13 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        convolution_4: "f32[4, 32, 16, 16]" = torch.ops.aten.convolution.default(convolution_3, clone_default_13, primals_15, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_13 = primals_15 = None
        view_default_2: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(convolution_4, [4, 8, 4, 256])
        var_mean_2 = torch.ops.aten.var_mean.correction(view_default_2, [2, 3], correction = 0, keepdim = True);  view_default_2 = None
        getitem_4: "f32[4, 8, 1, 1]" = var_mean_2[0]
        getitem_5: "f32[4, 8, 1, 1]" = var_mean_2[1];  var_mean_2 = None
        add_6: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_4, 1e-05)
        rsqrt_2: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_6);  add_6 = None
        view_7: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_16, [1, 8, 4, 1])
        mul_8: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(rsqrt_2, view_7);  rsqrt_2 = view_7 = None
        neg_2: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_5)
        mul_9: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(neg_2, mul_8);  neg_2 = None
        view_8: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_17, [1, 8, 4, 1])
        add_7: "f32[4, 8, 4, 1]" = torch.ops.aten.add.Tensor(mul_9, view_8);  mul_9 = view_8 = None
        as_strided_4: "f32[4, 32]" = torch.ops.aten.view.default(mul_8, [4, 32]);  mul_8 = None
        as_strided_5: "f32[4, 32]" = torch.ops.aten.view.default(add_7, [4, 32]);  add_7 = None
        unsqueeze_8: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_4, 2);  as_strided_4 = None
        unsqueeze_9: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_8, 3);  unsqueeze_8 = None
        unsqueeze_10: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_5, 2);  as_strided_5 = None
        unsqueeze_11: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_10, 3);  unsqueeze_10 = None
        mul_10: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_4, unsqueeze_9);  unsqueeze_9 = None
        add_8: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_10, unsqueeze_11);  mul_10 = unsqueeze_11 = None
        sigmoid_2: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_8)
        mul_11: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_8, sigmoid_2);  add_8 = sigmoid_2 = None
        clone_default_15: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(mul_11, memory_format = torch.channels_last);  mul_11 = None
        convolution_5: "f32[4, 32, 16, 16]" = torch.ops.aten.convolution.default(clone_default_15, clone_default_17, primals_19, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_15 = clone_default_17 = primals_19 = None
        view_default_3: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(convolution_5, [4, 8, 4, 256])
        var_mean_3 = torch.ops.aten.var_mean.correction(view_default_3, [2, 3], correction = 0, keepdim = True);  view_default_3 = None
        getitem_6: "f32[4, 8, 1, 1]" = var_mean_3[0]
        getitem_7: "f32[4, 8, 1, 1]" = var_mean_3[1];  var_mean_3 = None
        add_9: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_6, 1e-05)
        rsqrt_3: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_9);  add_9 = None
        view_10: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_20, [1, 8, 4, 1])
        mul_12: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(rsqrt_3, view_10);  rsqrt_3 = view_10 = None
        neg_3: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_7)
        mul_13: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(neg_3, mul_12);  neg_3 = None
        view_11: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_21, [1, 8, 4, 1])
        add_10: "f32[4, 8, 4, 1]" = torch.ops.aten.add.Tensor(mul_13, view_11);  mul_13 = view_11 = None
        as_strided_6: "f32[4, 32]" = torch.ops.aten.view.default(mul_12, [4, 32]);  mul_12 = None
        as_strided_7: "f32[4, 32]" = torch.ops.aten.view.default(add_10, [4, 32]);  add_10 = None
        unsqueeze_12: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_6, 2);  as_strided_6 = None
        unsqueeze_13: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_12, 3);  unsqueeze_12 = None
        unsqueeze_14: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_7, 2);  as_strided_7 = None
        unsqueeze_15: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_14, 3);  unsqueeze_14 = None
        mul_14: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_5, unsqueeze_13);  unsqueeze_13 = None
        add_11: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_14, unsqueeze_15);  mul_14 = unsqueeze_15 = None
        sigmoid_3: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_11)
        mul_15: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_11, sigmoid_3);  add_11 = sigmoid_3 = None
        clone_default_19: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(mul_15, memory_format = torch.channels_last);  mul_15 = None

        # File: /work/main/bessemer/zoo/small.py:121 in forward, code: h = self.downs[i](h)
        convolution_6: "f32[4, 64, 8, 8]" = torch.ops.aten.convolution.default(clone_default_19, clone_default_21, primals_23, [2, 2], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_21 = primals_23 = None
        clone_default_22: "f32[4, 64, 8, 8]" = torch.ops.aten.clone.default(convolution_6, memory_format = torch.contiguous_format);  convolution_6 = None

        # File: /work/main/bessemer/zoo/small.py:118 in forward, code: h = stage(h)
        convolution_7: "f32[4, 64, 8, 8]" = torch.ops.aten.convolution.default(clone_default_22, primals_24, primals_25, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  primals_25 = None
        view_12: "f32[4, 8, 8, 64]" = torch.ops.aten.view.default(convolution_7, [4, 8, 8, 64])
        var_mean_4 = torch.ops.aten.var_mean.correction(view_12, [2, 3], correction = 0, keepdim = True);  view_12 = None
        getitem_8: "f32[4, 8, 1, 1]" = var_mean_4[0]
        getitem_9: "f32[4, 8, 1, 1]" = var_mean_4[1];  var_mean_4 = None
        add_12: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_8, 1e-05)
        rsqrt_4: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_12);  add_12 = None
        view_13: "f32[1, 8, 8, 1]" = torch.ops.aten.view.default(primals_26, [1, 8, 8, 1])
        mul_16: "f32[4, 8, 8, 1]" = torch.ops.aten.mul.Tensor(rsqrt_4, view_13);  rsqrt_4 = view_13 = None
        neg_4: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_9)
        mul_17: "f32[4, 8, 8, 1]" = torch.ops.aten.mul.Tensor(neg_4, mul_16);  neg_4 = None
        view_14: "f32[1, 8, 8, 1]" = torch.ops.aten.view.default(primals_27, [1, 8, 8, 1])
        add_13: "f32[4, 8, 8, 1]" = torch.ops.aten.add.Tensor(mul_17, view_14);  mul_17 = view_14 = None
        as_strided_8: "f32[4, 64]" = torch.ops.aten.view.default(mul_16, [4, 64]);  mul_16 = None
        as_strided_9: "f32[4, 64]" = torch.ops.aten.view.default(add_13, [4, 64]);  add_13 = None
        unsqueeze_16: "f32[4, 64, 1]" = torch.ops.aten.unsqueeze.default(as_strided_8, 2);  as_strided_8 = None
        unsqueeze_17: "f32[4, 64, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_16, 3);  unsqueeze_16 = None
        unsqueeze_18: "f32[4, 64, 1]" = torch.ops.aten.unsqueeze.default(as_strided_9, 2);  as_strided_9 = None
        unsqueeze_19: "f32[4, 64, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_18, 3);  unsqueeze_18 = None
        mul_18: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(convolution_7, unsqueeze_17);  unsqueeze_17 = None
        add_14: "f32[4, 64, 8, 8]" = torch.ops.aten.add.Tensor(mul_18, unsqueeze_19);  mul_18 = unsqueeze_19 = None
        sigmoid_4: "f32[4, 64, 8, 8]" = torch.ops.aten.sigmoid.default(add_14)
        mul_19: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(add_14, sigmoid_4);  add_14 = sigmoid_4 = None
        convolution_8: "f32[4, 64, 8, 8]" = torch.ops.aten.convolution.default(mul_19, primals_28, primals_29, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  mul_19 = primals_29 = None
        view_15: "f32[4, 8, 8, 64]" = torch.ops.aten.view.default(convolution_8, [4, 8, 8, 64])
        var_mean_5 = torch.ops.aten.var_mean.correction(view_15, [2, 3], correction = 0, keepdim = True);  view_15 = None
        getitem_10: "f32[4, 8, 1, 1]" = var_mean_5[0]
        getitem_11: "f32[4, 8, 1, 1]" = var_mean_5[1];  var_mean_5 = None
        add_15: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_10, 1e-05)
        rsqrt_5: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_15);  add_15 = None
        view_16: "f32[1, 8, 8, 1]" = torch.ops.aten.view.default(primals_30, [1, 8, 8, 1])
        mul_20: "f32[4, 8, 8, 1]" = torch.ops.aten.mul.Tensor(rsqrt_5, view_16);  rsqrt_5 = view_16 = None
        neg_5: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_11)
        mul_21: "f32[4, 8, 8, 1]" = torch.ops.aten.mul.Tensor(neg_5, mul_20);  neg_5 = None
        view_17: "f32[1, 8, 8, 1]" = torch.ops.aten.view.default(primals_31, [1, 8, 8, 1])
        add_16: "f32[4, 8, 8, 1]" = torch.ops.aten.add.Tensor(mul_21, view_17);  mul_21 = view_17 = None
        as_strided_10: "f32[4, 64]" = torch.ops.aten.view.default(mul_20, [4, 64]);  mul_20 = None
        as_strided_11: "f32[4, 64]" = torch.ops.aten.view.default(add_16, [4, 64]);  add_16 = None
        unsqueeze_20: "f32[4, 64, 1]" = torch.ops.aten.unsqueeze.default(as_strided_10, 2);  as_strided_10 = None
        unsqueeze_21: "f32[4, 64, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_20, 3);  unsqueeze_20 = None
        unsqueeze_22: "f32[4, 64, 1]" = torch.ops.aten.unsqueeze.default(as_strided_11, 2);  as_strided_11 = None
        unsqueeze_23: "f32[4, 64, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_22, 3);  unsqueeze_22 = None
        mul_22: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(convolution_8, unsqueeze_21);  unsqueeze_21 = None
        add_17: "f32[4, 64, 8, 8]" = torch.ops.aten.add.Tensor(mul_22, unsqueeze_23);  mul_22 = unsqueeze_23 = None
        sigmoid_5: "f32[4, 64, 8, 8]" = torch.ops.aten.sigmoid.default(add_17)
        mul_23: "f32[4, 64, 8, 8]" = torch.ops.aten.mul.Tensor(add_17, sigmoid_5);  add_17 = sigmoid_5 = None
        clone_default_23: "f32[4, 64, 8, 8]" = torch.ops.aten.clone.default(mul_23, memory_format = torch.channels_last);  mul_23 = None

        # File: /work/main/bessemer/zoo/small.py:123 in forward, code: h = stage(up(h) + skip)
        convolution_9: "f32[4, 32, 16, 16]" = torch.ops.aten.convolution.default(clone_default_23, clone_default_25, primals_33, [2, 2], [0, 0], [1, 1], True, [0, 0], 1);  clone_default_23 = clone_default_25 = primals_33 = None
        add_18: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(convolution_9, clone_default_19);  convolution_9 = clone_default_19 = None
        clone_default_27: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(add_18, memory_format = torch.channels_last);  add_18 = None
        convolution_10: "f32[4, 32, 16, 16]" = torch.ops.aten.convolution.default(clone_default_27, clone_default_29, primals_35, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_29 = primals_35 = None
        view_default_4: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(convolution_10, [4, 8, 4, 256])
        var_mean_6 = torch.ops.aten.var_mean.correction(view_default_4, [2, 3], correction = 0, keepdim = True);  view_default_4 = None
        getitem_12: "f32[4, 8, 1, 1]" = var_mean_6[0]
        getitem_13: "f32[4, 8, 1, 1]" = var_mean_6[1];  var_mean_6 = None
        add_19: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_12, 1e-05)
        rsqrt_6: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_19);  add_19 = None
        view_19: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_36, [1, 8, 4, 1])
        mul_24: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(rsqrt_6, view_19);  rsqrt_6 = view_19 = None
        neg_6: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_13)
        mul_25: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(neg_6, mul_24);  neg_6 = None
        view_20: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_37, [1, 8, 4, 1])
        add_20: "f32[4, 8, 4, 1]" = torch.ops.aten.add.Tensor(mul_25, view_20);  mul_25 = view_20 = None
        as_strided_12: "f32[4, 32]" = torch.ops.aten.view.default(mul_24, [4, 32]);  mul_24 = None
        as_strided_13: "f32[4, 32]" = torch.ops.aten.view.default(add_20, [4, 32]);  add_20 = None
        unsqueeze_24: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_12, 2);  as_strided_12 = None
        unsqueeze_25: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_24, 3);  unsqueeze_24 = None
        unsqueeze_26: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_13, 2);  as_strided_13 = None
        unsqueeze_27: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_26, 3);  unsqueeze_26 = None
        mul_26: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_10, unsqueeze_25);  unsqueeze_25 = None
        add_21: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_26, unsqueeze_27);  mul_26 = unsqueeze_27 = None
        sigmoid_6: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_21)
        mul_27: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_21, sigmoid_6);  add_21 = sigmoid_6 = None
        clone_default_31: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(mul_27, memory_format = torch.channels_last);  mul_27 = None
        convolution_11: "f32[4, 32, 16, 16]" = torch.ops.aten.convolution.default(clone_default_31, clone_default_33, primals_39, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_31 = clone_default_33 = primals_39 = None
        view_default_5: "f32[4, 8, 4, 256]" = torch.ops.aten.view.default(convolution_11, [4, 8, 4, 256])
        var_mean_7 = torch.ops.aten.var_mean.correction(view_default_5, [2, 3], correction = 0, keepdim = True);  view_default_5 = None
        getitem_14: "f32[4, 8, 1, 1]" = var_mean_7[0]
        getitem_15: "f32[4, 8, 1, 1]" = var_mean_7[1];  var_mean_7 = None
        add_22: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_14, 1e-05)
        rsqrt_7: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_22);  add_22 = None
        view_22: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_40, [1, 8, 4, 1])
        mul_28: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(rsqrt_7, view_22);  rsqrt_7 = view_22 = None
        neg_7: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_15)
        mul_29: "f32[4, 8, 4, 1]" = torch.ops.aten.mul.Tensor(neg_7, mul_28);  neg_7 = None
        view_23: "f32[1, 8, 4, 1]" = torch.ops.aten.view.default(primals_41, [1, 8, 4, 1])
        add_23: "f32[4, 8, 4, 1]" = torch.ops.aten.add.Tensor(mul_29, view_23);  mul_29 = view_23 = None
        as_strided_14: "f32[4, 32]" = torch.ops.aten.view.default(mul_28, [4, 32]);  mul_28 = None
        as_strided_15: "f32[4, 32]" = torch.ops.aten.view.default(add_23, [4, 32]);  add_23 = None
        unsqueeze_28: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_14, 2);  as_strided_14 = None
        unsqueeze_29: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_28, 3);  unsqueeze_28 = None
        unsqueeze_30: "f32[4, 32, 1]" = torch.ops.aten.unsqueeze.default(as_strided_15, 2);  as_strided_15 = None
        unsqueeze_31: "f32[4, 32, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_30, 3);  unsqueeze_30 = None
        mul_30: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_11, unsqueeze_29);  unsqueeze_29 = None
        add_24: "f32[4, 32, 16, 16]" = torch.ops.aten.add.Tensor(mul_30, unsqueeze_31);  mul_30 = unsqueeze_31 = None
        sigmoid_7: "f32[4, 32, 16, 16]" = torch.ops.aten.sigmoid.default(add_24)
        mul_31: "f32[4, 32, 16, 16]" = torch.ops.aten.mul.Tensor(add_24, sigmoid_7);  add_24 = sigmoid_7 = None
        clone_default_35: "f32[4, 32, 16, 16]" = torch.ops.aten.clone.default(mul_31, memory_format = torch.channels_last);  mul_31 = None
        convolution_12: "f32[4, 16, 32, 32]" = torch.ops.aten.convolution.default(clone_default_35, clone_default_37, primals_43, [2, 2], [0, 0], [1, 1], True, [0, 0], 1);  clone_default_35 = clone_default_37 = primals_43 = None
        add_25: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(convolution_12, clone_default_9);  convolution_12 = clone_default_9 = None
        clone_default_39: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(add_25, memory_format = torch.channels_last);  add_25 = None
        convolution_13: "f32[4, 16, 32, 32]" = torch.ops.aten.convolution.default(clone_default_39, clone_default_41, primals_45, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_41 = primals_45 = None
        view_default_6: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(convolution_13, [4, 8, 2, 1024])
        var_mean_8 = torch.ops.aten.var_mean.correction(view_default_6, [2, 3], correction = 0, keepdim = True);  view_default_6 = None
        getitem_16: "f32[4, 8, 1, 1]" = var_mean_8[0]
        getitem_17: "f32[4, 8, 1, 1]" = var_mean_8[1];  var_mean_8 = None
        add_26: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_16, 1e-05)
        rsqrt_8: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_26);  add_26 = None
        view_25: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_46, [1, 8, 2, 1])
        mul_32: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(rsqrt_8, view_25);  rsqrt_8 = view_25 = None
        neg_8: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_17)
        mul_33: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(neg_8, mul_32);  neg_8 = None
        view_26: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_47, [1, 8, 2, 1])
        add_27: "f32[4, 8, 2, 1]" = torch.ops.aten.add.Tensor(mul_33, view_26);  mul_33 = view_26 = None
        as_strided_16: "f32[4, 16]" = torch.ops.aten.view.default(mul_32, [4, 16]);  mul_32 = None
        as_strided_17: "f32[4, 16]" = torch.ops.aten.view.default(add_27, [4, 16]);  add_27 = None
        unsqueeze_32: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_16, 2);  as_strided_16 = None
        unsqueeze_33: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_32, 3);  unsqueeze_32 = None
        unsqueeze_34: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_17, 2);  as_strided_17 = None
        unsqueeze_35: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_34, 3);  unsqueeze_34 = None
        mul_34: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(convolution_13, unsqueeze_33);  unsqueeze_33 = None
        add_28: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_34, unsqueeze_35);  mul_34 = unsqueeze_35 = None
        sigmoid_8: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_28)
        mul_35: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_28, sigmoid_8);  add_28 = sigmoid_8 = None
        clone_default_43: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(mul_35, memory_format = torch.channels_last);  mul_35 = None
        convolution_14: "f32[4, 16, 32, 32]" = torch.ops.aten.convolution.default(clone_default_43, clone_default_45, primals_49, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  clone_default_43 = clone_default_45 = primals_49 = None
        view_default_7: "f32[4, 8, 2, 1024]" = torch.ops.aten.view.default(convolution_14, [4, 8, 2, 1024])
        var_mean_9 = torch.ops.aten.var_mean.correction(view_default_7, [2, 3], correction = 0, keepdim = True);  view_default_7 = None
        getitem_18: "f32[4, 8, 1, 1]" = var_mean_9[0]
        getitem_19: "f32[4, 8, 1, 1]" = var_mean_9[1];  var_mean_9 = None
        add_29: "f32[4, 8, 1, 1]" = torch.ops.aten.add.Tensor(getitem_18, 1e-05)
        rsqrt_9: "f32[4, 8, 1, 1]" = torch.ops.aten.rsqrt.default(add_29);  add_29 = None
        view_28: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_50, [1, 8, 2, 1])
        mul_36: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(rsqrt_9, view_28);  rsqrt_9 = view_28 = None
        neg_9: "f32[4, 8, 1, 1]" = torch.ops.aten.neg.default(getitem_19)
        mul_37: "f32[4, 8, 2, 1]" = torch.ops.aten.mul.Tensor(neg_9, mul_36);  neg_9 = None
        view_29: "f32[1, 8, 2, 1]" = torch.ops.aten.view.default(primals_51, [1, 8, 2, 1])
        add_30: "f32[4, 8, 2, 1]" = torch.ops.aten.add.Tensor(mul_37, view_29);  mul_37 = view_29 = None
        as_strided_18: "f32[4, 16]" = torch.ops.aten.view.default(mul_36, [4, 16]);  mul_36 = None
        as_strided_19: "f32[4, 16]" = torch.ops.aten.view.default(add_30, [4, 16]);  add_30 = None
        unsqueeze_36: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_18, 2);  as_strided_18 = None
        unsqueeze_37: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_36, 3);  unsqueeze_36 = None
        unsqueeze_38: "f32[4, 16, 1]" = torch.ops.aten.unsqueeze.default(as_strided_19, 2);  as_strided_19 = None
        unsqueeze_39: "f32[4, 16, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_38, 3);  unsqueeze_38 = None
        mul_38: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(convolution_14, unsqueeze_37);  unsqueeze_37 = None
        add_31: "f32[4, 16, 32, 32]" = torch.ops.aten.add.Tensor(mul_38, unsqueeze_39);  mul_38 = unsqueeze_39 = None
        sigmoid_9: "f32[4, 16, 32, 32]" = torch.ops.aten.sigmoid.default(add_31)
        mul_39: "f32[4, 16, 32, 32]" = torch.ops.aten.mul.Tensor(add_31, sigmoid_9);  add_31 = sigmoid_9 = None
        clone_default_47: "f32[4, 16, 32, 32]" = torch.ops.aten.clone.default(mul_39, memory_format = torch.channels_last);  mul_39 = None

        # File: /work/main/bessemer/zoo/small.py:124 in forward, code: return F.mse_loss(self.head(h), target)
        convolution_15: "f32[4, 3, 32, 32]" = torch.ops.aten.convolution.default(clone_default_47, primals_52, primals_53, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  clone_default_47 = primals_53 = None
        sub: "f32[4, 3, 32, 32]" = torch.ops.aten.sub.Tensor(convolution_15, primals_54)
        pow_1: "f32[4, 3, 32, 32]" = torch.ops.aten.pow.Tensor_Scalar(sub, 2);  sub = None
        mean: "f32[]" = torch.ops.aten.mean.default(pow_1);  pow_1 = None
        sub_1: "f32[4, 3, 32, 32]" = torch.ops.aten.sub.Tensor(convolution_15, primals_54);  convolution_15 = primals_54 = None
        mul_40: "f32[4, 3, 32, 32]" = torch.ops.aten.mul.Tensor(sub_1, 0.00016276041666666666);  sub_1 = None
        return (mean, primals_1, clone_default, primals_4, primals_6, primals_7, primals_8, primals_10, primals_11, primals_12, primals_14, primals_16, primals_17, primals_18, primals_20, primals_21, primals_22, primals_24, primals_26, primals_27, primals_28, primals_30, primals_31, primals_32, primals_34, primals_36, primals_37, primals_38, primals_40, primals_41, primals_42, primals_44, primals_46, primals_47, primals_48, primals_50, primals_51, primals_52, convolution, convolution_1, getitem, getitem_1, convolution_2, getitem_2, getitem_3, convolution_3, convolution_4, getitem_4, getitem_5, convolution_5, getitem_6, getitem_7, clone_default_22, convolution_7, getitem_8, getitem_9, convolution_8, getitem_10, getitem_11, clone_default_27, convolution_10, getitem_12, getitem_13, convolution_11, getitem_14, getitem_15, clone_default_39, convolution_13, getitem_16, getitem_17, convolution_14, getitem_18, getitem_19, mul_40)
